import CSoup
import Foundation
import Synchronization

/// The certificate authorities HTTPS is checked against: the one place of TLS
/// trust. By default the system's; `SSL_CERT_FILE` (the variable OpenSSL, curl and
/// Python read) names a PEM file of CAs to trust instead: a private CA.
/// libcurl (`memory: true`, HLS playlists read whole, webhooks, source diagnosis)
/// gets it as CURLOPT_CAINFO on every `EasyHandle`. GStreamer gets it from `apply`,
/// called on every source before it starts: as that source's TLS database, and as
/// GIO's default TLS database, which every TLS connection GStreamer makes without
/// one of its own uses: the HLS demuxer's downloads (segments, playlist reloads,
/// keys), which no source-setup signal reaches.
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

    /// The database made from `path` (once per path), nil when it holds no usable
    /// certificate. Once made, it is also GIO's default TLS database for the process.
    private static func database(_ path: String) -> Database? {
        loaded.withLock { loaded in
            if let loaded, loaded.path == path { return loaded.database }
            var error: UnsafeMutablePointer<GError>? = nil
            let made = g_tls_file_database_new(path, &error).map { Database($0) }
            if let error { g_error_free(error) }
            // GIO keeps its own reference; set before any connection of this source is made.
            if let made { g_tls_backend_set_default_database(g_tls_backend_get_default(), made.raw) }
            loaded = (path, made)
            return made
        }
    }

    /// Gives `source` (souphttpsrc) and what it leads to (an HLS demuxer's downloads)
    /// the CAs of `SSL_CERT_FILE` when set. Returns a
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
