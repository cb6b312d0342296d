import CSoup
import Foundation
import Synchronization

/// The certificate authorities HTTPS sources are checked against. By default the
/// system's; `SSL_CERT_FILE` (the variable OpenSSL, curl and Python read) names a
/// PEM file of CAs to trust instead: a private CA. GStreamer's HTTP source gets it
/// as its TLS database, libcurl (`memory: true`, webhooks) as CURLOPT_CAINFO.
enum TLSTrust {
    /// The property through which a GStreamer source takes its CAs.
    private static let tlsDatabase = "tls-database"

    /// The CA file `SSL_CERT_FILE` names, if set.
    static var caFile: String? {
        guard let path = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !path.isEmpty else { return nil }
        return path
    }

    /// @unchecked Sendable: wraps a GTlsDatabase (immutable once made, thread-safe in GIO).
    private final class Database: @unchecked Sendable {
        let raw: UnsafeMutablePointer<GTlsDatabase>
        init(_ raw: UnsafeMutablePointer<GTlsDatabase>) { self.raw = raw }
        deinit { g_object_unref(UnsafeMutableRawPointer(raw)) }
    }

    /// The database last made, and the path it was made from.
    private static let loaded = Mutex<(path: String, database: Database?)?>(nil)

    /// The database made from `path` (once per path), nil when it holds no usable certificate.
    private static func database(_ path: String) -> Database? {
        loaded.withLock { loaded in
            if let loaded, loaded.path == path { return loaded.database }
            var error: UnsafeMutablePointer<GError>? = nil
            let made = g_tls_file_database_new(path, &error).map { Database($0) }
            if let error { g_error_free(error) }
            loaded = (path, made)
            return made
        }
    }

    /// Gives `source` (souphttpsrc) the CAs of `SSL_CERT_FILE` when set. Returns a
    /// one-line problem when the file cannot be used; nil when all is well. A source
    /// without TLS (a file) is left alone: the CA file is read only when it is needed
    /// (the system's CAs are some 3 MB of memory and tens of ms of parsing).
    static func apply(to source: Element, caFile: String? = TLSTrust.caFile) -> String? {
        guard let path = caFile, source.hasObjectProperty(tlsDatabase) else { return nil }
        guard let db = database(path) else { return "SSL_CERT_FILE \(path): no certificate can be read from it" }
        source.set(tlsDatabase, object: UnsafeMutableRawPointer(db.raw))
        return nil
    }
}
