import Foundation

/// A private CA, and a certificate for 127.0.0.1 it signed (openssl, made now
/// in `dir`): what a server on loopback speaks TLS with, and what `SSL_CERT_FILE`
/// names to trust it.
struct TestPKI {
    let ca: URL
    let cert: URL
    let key: URL

    init(in dir: URL) throws {
        let f = { (name: String) in dir.appendingPathComponent(name) }
        func openssl(_ args: [String]) throws {
            let r = try Proc.run("openssl", args, timeout: 60)
            guard r.status == 0 else { throw HarnessError(r.summary("openssl \(args.first ?? "")")) }
        }
        try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f("ca.key").path, "-out", f("ca.pem").path,
                     "-days", "2", "-subj", "/CN=mediapub test CA"])
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", f("server.key").path, "-out", f("server.csr").path,
                     "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(to: f("server.ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", f("server.csr").path, "-CA", f("ca.pem").path, "-CAkey", f("ca.key").path,
                     "-CAcreateserial", "-out", f("server.pem").path, "-days", "2", "-extfile", f("server.ext").path])
        (ca, cert, key) = (f("ca.pem"), f("server.pem"), f("server.key"))
    }
}
