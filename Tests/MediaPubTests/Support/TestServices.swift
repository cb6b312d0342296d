// Real servers for the end-to-end tests, all on 127.0.0.1:
//  - RTMPServer: nginx + Debian's libnginx-mod-rtmp, from a temp prefix
//  - HTTPServer: nginx serving a directory (HTTP/HLS sources)
//  - SRTListener: srt-live-transmit listening, writing what it receives to a .ts
//  - IcecastServer: Debian's icecast2 with a config the test writes, in a temp basedir
// plus free-port finding and readiness polling.

import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Ports

enum Ports {
    private static let handedOut = Mutex(Set<UInt16>())

    /// A port that is free on 127.0.0.1 for both TCP and UDP right now (bind
    /// port 0, read it back, close), never handed out twice in this process.
    static func free() throws -> UInt16 {
        try handedOut.withLock { handedOut in
            for _ in 0..<50 {
                let port = try bindEphemeral(type: tcp)
                if handedOut.contains(port) { continue }
                guard canBind(port: port, type: udp), canBind(port: port, type: tcp) else { continue }
                handedOut.insert(port)
                return port
            }
            throw HarnessError("could not find a free loopback port")
        }
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }

    #if canImport(Glibc)
    private static let tcp = Int32(SOCK_STREAM.rawValue)
    private static let udp = Int32(SOCK_DGRAM.rawValue)
    #else
    private static let tcp = SOCK_STREAM
    private static let udp = SOCK_DGRAM
    #endif

    private static func bindEphemeral(type: Int32) throws -> UInt16 {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: \(errno)") }
        defer { close(fd) }
        var addr = loopback(0)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw HarnessError("bind() failed: \(errno)") }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return UInt16(bigEndian: out.sin_port)
    }

    /// Opens a socket of `type`, applies `call` (bind or connect) to 127.0.0.1:port
    /// and closes it again: whether the call succeeded.
    private static func onLoopback(port: UInt16, type: Int32,
                                   _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Bool {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = loopback(port)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return rc == 0
    }

    /// A TCP socket listening on 127.0.0.1 at a port of the system's choosing, that
    /// nobody accepts from (the kernel completes connections into its backlog): the
    /// descriptor (closed at the test's teardown) and the port.
    static func listener(in test: XCTestCase, backlog: Int32 = 8) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, tcp, 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: \(errno)") }
        test.addTeardownBlock { close(fd) }
        var addr = loopback(0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw HarnessError("cannot listen on 127.0.0.1: \(errno)") }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    private static func canBind(port: UInt16, type: Int32) -> Bool {
        onLoopback(port: port, type: type) { bind($0, $1, $2) }
    }

    /// True when something accepts a TCP connection on 127.0.0.1:port.
    static func tcpAccepts(_ port: UInt16) -> Bool {
        onLoopback(port: port, type: tcp) { connect($0, $1, $2) }
    }

    /// True when a UDP socket is bound to `port` (any address), read from
    /// /proc/net/udp{,6} so that probing never disturbs the listener.
    static func udpBound(_ port: UInt16) -> Bool {
        let hex = String(format: ":%04X", port)
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let cols = line.split(separator: " ", omittingEmptySubsequences: true)
                if cols.count > 1, cols[1].hasSuffix(hex) { return true }
            }
        }
        return false
    }

    /// Waits until `condition` holds or `timeout` passes, looking again each time
    /// mediapub writes to `file` (its events file): inotify on the file once it exists,
    /// on its folder's new files until then. A look at least every `fallback` seconds
    /// too, for the parts of a condition that no write announces (`!mp.isRunning`).
    static func waitUntil(timeout: TimeInterval, watching file: URL, fallback: TimeInterval = 0.5,
                          _ condition: () -> Bool) -> Bool {
        let changes = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard changes >= 0 else { return waitUntil(timeout: timeout, condition) }
        defer { close(changes) }
        _ = inotify_add_watch(changes, file.deletingLastPathComponent().path, UInt32(IN_CREATE | IN_MOVED_TO))
        var watchesFile = false
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // The watch is made before the look, so a write in between wakes the poll at once.
            if !watchesFile { watchesFile = inotify_add_watch(changes, file.path, UInt32(IN_MODIFY | IN_CLOSE_WRITE)) >= 0 }
            if condition() { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var watch = pollfd(fd: changes, events: Int16(POLLIN), revents: 0)
            if poll(&watch, 1, Int32(min(left, fallback) * 1000) + 1) > 0 {
                var drain = [UInt8](repeating: 0, count: 4096)
                while read(changes, &drain, drain.count) > 0 {}
            }
        }
    }

    /// Poll `condition` every 50 ms until it holds or `timeout` passes.
    static func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if condition() { return true }
            usleep(50_000)
        } while Date() < deadline
        return condition()
    }

    static func waitForTCP(_ port: UInt16, timeout: TimeInterval = 10) -> Bool {
        waitUntil(timeout: timeout) { tcpAccepts(port) }
    }

    static func waitForUDP(_ port: UInt16, timeout: TimeInterval = 10) -> Bool {
        waitUntil(timeout: timeout) { udpBound(port) }
    }
}

// MARK: - nginx (RTMP / HTTP)

/// An nginx instance in a private temp prefix, single process, foreground.
class NginxService {
    let port: UInt16
    let dir: URL
    let process: RunningProcess

    /// `body` gets the port and the prefix dir and returns the config after the
    /// common header (pid, error_log, events).
    /// `fixedPort`: listen there (a server that comes up where a client already waits).
    init(label: String, loadRTMP: Bool, fixedPort: UInt16? = nil, body: (UInt16, URL) -> String) throws {
        var lastError = ""
        for _ in 0..<(fixedPort == nil ? 3 : 1) {
            let port = try fixedPort ?? Ports.free()
            let dir = URL(fileURLWithPath: "/tmp").appendingPathComponent("mediapub-\(label)-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("logs"), withIntermediateDirectories: true)
            let conf = """
            \(loadRTMP ? "load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;" : "")
            daemon off;
            master_process off;
            pid \(dir.path)/nginx.pid;
            error_log \(dir.path)/logs/error.log info;
            events { worker_connections 256; }
            \(body(port, dir))
            """
            let confURL = dir.appendingPathComponent("nginx.conf")
            try conf.write(to: confURL, atomically: true, encoding: .utf8)
            let p = try RunningProcess(executable: "nginx",
                                       arguments: ["-p", dir.path + "/", "-c", confURL.path, "-e", dir.path + "/logs/error.log"],
                                       stdoutURL: dir.appendingPathComponent("logs/stdout.log"),
                                       stderrURL: dir.appendingPathComponent("logs/stderr.log"))
            if Ports.waitUntil(timeout: 10, { Ports.tcpAccepts(port) || !p.isRunning }), p.isRunning {
                self.port = port
                self.dir = dir
                self.process = p
                return
            }
            p.kill9()
            let log = (try? String(contentsOf: dir.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            lastError = "nginx (\(label)) did not listen on 127.0.0.1:\(port): \(p.stderr) \(log)"
            p.cleanUp()
            try? FileManager.default.removeItem(at: dir)
        }
        throw HarnessError(lastError)
    }

    var errorLog: String {
        (try? String(contentsOf: dir.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
    }

    /// SIGTERM (fast shutdown), SIGKILL after 5 s, remove the prefix.
    func stop() {
        process.stop(signal: SIGTERM, grace: 5)
        process.cleanUp()
        try? FileManager.default.removeItem(at: dir)
    }
}

/// nginx with the RTMP module: `rtmp://127.0.0.1:PORT/live/KEY`.
/// `recordTo`: the server records every stream it gets there (`record all`, one FLV per publish).
/// `keyPrefix`: it accepts only stream keys that start so (an `on_publish` check on
/// an HTTP location of the same nginx, as a platform checks keys); others are refused.
final class RTMPServer: NginxService {
    init(port: UInt16? = nil, recordTo: URL? = nil, keyPrefix: String? = nil) throws {
        let authPort = keyPrefix == nil ? 0 : try Ports.free()
        try super.init(label: "rtmp", loadRTMP: true, fixedPort: port) { port, dir in
            let record = recordTo.map { "record all; record_path \($0.path); record_unique on;" } ?? "record off;"
            let auth = keyPrefix == nil ? "" : "notify_method get; on_publish http://127.0.0.1:\(authPort)/auth;"
            let http = keyPrefix.map { prefix in
                """
                http {
                    access_log \(dir.path)/logs/access.log;
                    client_body_temp_path \(dir.path)/client_body;
                    server {
                        listen 127.0.0.1:\(authPort);
                        location /auth { if ($arg_name ~ "^\(prefix)") { return 204; } return 403; }
                    }
                }
                """
            } ?? ""
            return """
            \(http)
            rtmp {
                server {
                    listen 127.0.0.1:\(port);
                    chunk_size 4096;
                    application live {
                        live on;
                        \(record)
                        \(auth)
                    }
                }
            }
            """
        }
    }

    /// The streams the server recorded (`recordTo`), oldest first.
    func recordings(in folder: URL) -> [URL] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".flv") }.sorted()
        return names.map { folder.appendingPathComponent($0) }
    }

    func url(key: String) -> String { "rtmp://127.0.0.1:\(port)/live/\(key)" }
}

/// nginx serving `root` over HTTP: `http://127.0.0.1:PORT/NAME`; with `tls`
/// (a certificate and its key, see `TestPKI`) over HTTPS: `https://…`.
/// `/hook` answers 200 to anything (a webhook's POSTs).
final class HTTPServer: NginxService {
    let root: URL
    let scheme: String

    init(root: URL, tls: TestPKI? = nil) throws {
        self.root = root
        scheme = tls == nil ? "http" : "https"
        let listen = tls.map { "ssl; ssl_certificate \($0.cert.path); ssl_certificate_key \($0.key.path)" } ?? ""
        try super.init(label: "http", loadRTMP: false) { port, dir in
            """
            http {
                access_log \(dir.path)/logs/access.log;
                client_body_temp_path \(dir.path)/client_body;
                proxy_temp_path \(dir.path)/proxy;
                fastcgi_temp_path \(dir.path)/fastcgi;
                uwsgi_temp_path \(dir.path)/uwsgi;
                scgi_temp_path \(dir.path)/scgi;
                types {
                    video/mp4 mp4;
                    audio/mpeg mp3;
                    audio/flac flac;
                    audio/wav wav;
                    audio/aac aac;
                    video/x-flv flv;
                    application/vnd.apple.mpegurl m3u8;
                    video/mp2t ts;
                    image/png png;
                    image/jpeg jpg;
                }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(port) \(listen);
                    root \(root.path);
                    location = /hook { return 200; }
                }
            }
            """
        }
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)/\(path)" }

    var accessLog: String {
        (try? String(contentsOf: dir.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? ""
    }
}

// MARK: - SRT

/// `srt-live-transmit "srt://127.0.0.1:PORT?mode=listener" file://con > out.ts`
final class SRTListener {
    let port: UInt16
    let output: URL
    let process: RunningProcess
    let stderrURL: URL

    /// On a free port, or on `port` (one a listener before it had, to stand in for it).
    init(output: URL, latencyMS: Int = 120, port fixed: UInt16? = nil) throws {
        var lastError = ""
        for _ in 0..<3 {
            let port = try fixed ?? Ports.free()
            let errURL = output.deletingPathExtension().appendingPathExtension("srt-live-transmit.log")
            let p = try RunningProcess(executable: "srt-live-transmit",
                                       arguments: ["-a:yes", "srt://127.0.0.1:\(port)?mode=listener&latency=\(latencyMS)", "file://con"],
                                       stdoutURL: output, stderrURL: errURL)
            if Ports.waitUntil(timeout: 10, { Ports.udpBound(port) || !p.isRunning }), p.isRunning {
                self.port = port
                self.output = output
                self.process = p
                self.stderrURL = errURL
                return
            }
            p.kill9()
            lastError = "srt-live-transmit did not listen on \(port): \(p.stderr)"
            p.cleanUp()
        }
        throw HarnessError(lastError)
    }

    /// What a publisher connects to.
    var callerURL: String { "srt://127.0.0.1:\(port)?mode=caller" }

    var log: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Stop it (SIGINT, then SIGKILL); `output` then holds everything received.
    func stop() {
        process.stop(signal: SIGINT, grace: 5)
        process.cleanUp()
    }
}

// MARK: - Icecast

/// icecast2 on 127.0.0.1 with a config written here, in a temp basedir: sources log in
/// as `source` with `password`; `status-json.xsl` lists the mounts. As root it runs as
/// nobody (icecast2 refuses root), its basedir given to nobody. `stop` and `start`
/// take it down and bring it back on the same port (a server that goes and comes back).
final class IcecastServer {
    let port: UInt16
    let dir: URL
    let password: String
    private var process: RunningProcess?

    init(password: String) throws {
        self.password = password
        port = try Ports.free()
        dir = URL(fileURLWithPath: "/tmp").appendingPathComponent("mediapub-icecast-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("log"), withIntermediateDirectories: true)
        // Written into XML: a password with `&`, `<`, quotes is escaped there.
        let xml = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&apos;")]
            .reduce(password) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        let asNobody = getuid() == 0
            ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : ""
        let config = """
        <icecast>
          <location>test</location><admin>test@localhost</admin>
          <limits><clients>20</clients><sources>10</sources><source-timeout>10</source-timeout>
            <burst-on-connect>1</burst-on-connect></limits>
          <authentication><source-password>\(xml)</source-password>
            <admin-user>admin</admin-user><admin-password>admin-\(xml)</admin-password></authentication>
          <hostname>127.0.0.1</hostname>
          <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
          <fileserve>1</fileserve>
          <paths><basedir>\(dir.path)</basedir><logdir>\(dir.path)/log</logdir>
            <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
          <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
          <security><chroot>0</chroot>\(asNobody)</security>
        </icecast>
        """
        try config.write(to: dir.appendingPathComponent("icecast.xml"), atomically: true, encoding: .utf8)
        if getuid() == 0 {
            for path in [dir, dir.appendingPathComponent("log"), dir.appendingPathComponent("icecast.xml")] {
                _ = chown(path.path, 65534, 65534)   // nobody:nogroup
            }
        }
        try start()
    }

    /// Starts it (again) on its port; throws when it does not listen.
    func start() throws {
        let p = try RunningProcess(executable: "icecast2", arguments: ["-c", dir.appendingPathComponent("icecast.xml").path])
        guard Ports.waitUntil(timeout: 10, { Ports.tcpAccepts(port) || !p.isRunning }), p.isRunning else {
            p.kill9()
            let why = "icecast2 did not listen on 127.0.0.1:\(port): \(p.stderr) \(errorLog)"
            p.cleanUp()
            throw HarnessError(why)
        }
        process = p
    }

    /// Its process id while it runs.
    var pid: Int32? { process?.pid }

    /// SIGTERM (SIGKILL after 5 s): its sources are cut off.
    func stop() {
        process?.stop(signal: SIGTERM, grace: 5)
        process?.cleanUp()
        process = nil
    }

    /// Stops it and removes its basedir.
    func remove() {
        stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var errorLog: String { (try? String(contentsOf: dir.appendingPathComponent("log/error.log"), encoding: .utf8)) ?? "" }

    /// What a source publishes to (`password` nil: the server's).
    func url(mount: String, password: String? = nil, query: String = "") -> String {
        "icecast://source:\(password ?? self.password)@127.0.0.1:\(port)/\(mount)" + (query.isEmpty ? "" : "?" + query)
    }

    /// What a listener reads.
    func listenURL(_ mount: String) -> String { "http://127.0.0.1:\(port)/\(mount)" }

    /// The mounts `status-json.xsl` lists now, by listen URL's mount (`/radio.mp3`).
    func sources() -> [String: [String: Any]] {
        let get = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"
        guard let r = try? Proc.run("python3", ["-c", get, listenURL("status-json.xsl")], timeout: 10), r.status == 0,
              let json = try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any],
              let stats = json["icestats"] as? [String: Any] else { return [:] }
        // One source is an object, more are a list.
        let list = (stats["source"] as? [[String: Any]]) ?? (stats["source"] as? [String: Any]).map { [$0] } ?? []
        var byMount: [String: [String: Any]] = [:]
        for source in list {
            guard let listen = source["listenurl"] as? String, let url = URL(string: listen) else { continue }
            byMount[url.path] = source
        }
        return byMount
    }
}

/// A server on loopback that answers each connection's request (its head, up to a
/// blank line) with `answer` and closes at once (nil: closes without answering): an
/// Icecast-like server that says "200 OK" to a source and takes nothing, or one that
/// refuses a mount before the login. Counts the requests it was sent. Runs until the
/// test's teardown.
final class AnswerAndCloseServer: Sendable {
    let port: UInt16
    private let fd: Int32
    private let heads = Mutex<[String]>([])

    init(in test: XCTestCase, answer: String?) throws {
        (fd, port) = try Ports.listener(in: test, backlog: 64)
        let fd = self.fd
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }   // closed at teardown
                var head = [UInt8](), byte: UInt8 = 0
                var timeout = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                while !head.suffix(4).elementsEqual("\r\n\r\n".utf8), head.count < 8192, read(client, &byte, 1) == 1 { head.append(byte) }
                heads.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
                if let answer { _ = answer.utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) } }
                close(client)
            }
        }
        test.addTeardownBlock { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// The request lines it was sent so far (`SOURCE /a.mp3 HTTP/1.0`), in order.
    var requests: [String] { heads.withLock { $0.map { $0.components(separatedBy: "\r\n")[0] } } }
}

// MARK: - XCTestCase conveniences (stopped at teardown, also on failure)

extension XCTestCase {
    func startRTMPServer(port: UInt16? = nil, recordTo: URL? = nil, keyPrefix: String? = nil) throws -> RTMPServer {
        let s = try RTMPServer(port: port, recordTo: recordTo, keyPrefix: keyPrefix)
        addTeardownBlock { s.stop() }
        return s
    }

    func startHTTPServer(root: URL, tls: TestPKI? = nil) throws -> HTTPServer {
        let s = try HTTPServer(root: root, tls: tls)
        addTeardownBlock { s.stop() }
        return s
    }

    func startIcecastServer(password: String) throws -> IcecastServer {
        let s = try IcecastServer(password: password)
        addTeardownBlock { s.remove() }
        return s
    }

    func startSRTListener(output: URL) throws -> SRTListener {
        let s = try SRTListener(output: output)
        addTeardownBlock { s.stop() }
        return s
    }
}

// MARK: - Small disks

extension XCTestCase {
    /// A tmpfs of `megabytes` (2 MB) mounted at `dir/small-disk` (as root), unmounted at the end: a disk
    /// that fills. Nil (with a failure) when it cannot be mounted.
    func mountFullableDisk(in dir: URL, megabytes: Int = 2) throws -> URL? {
        let small = dir.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        let mount = try Proc.run(try Tools.path("mount"), ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", small.path], timeout: 30)
        XCTAssertEqual(mount.status, 0, mount.summary("mount a \(megabytes) MB tmpfs (as root)"))
        guard mount.status == 0 else { return nil }
        addTeardownBlock { _ = try? Proc.run(try Tools.path("umount"), [small.path], timeout: 30) }
        return small
    }
}
