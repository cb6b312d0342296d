import Foundation

/// `http:` (docs/presets.md, http; docs/http.md): who may read the HTTP server's pages
/// off loopback, and the file holding the token its commands need.
public struct HTTPConfig: Equatable, Sendable {
    /// Reading (status, events, log, …) needs no token on any address.
    public var publicRead = false
    /// A file, owner-only, whose first line is the token.
    public var tokenFile: String?

    public init(publicRead: Bool = false, tokenFile: String? = nil) {
        self.publicRead = publicRead
        self.tokenFile = tokenFile
    }
}

extension HTTPConfig: PresetSection {
    static let presetDefault = HTTPConfig()

    static let fields: [PresetField<HTTPConfig>] = [
        .flag("public_read", \.publicRead, "Reading over HTTP (the page, status, events, log) needs no token on any address; commands still do."),
        PresetField(key: "token_file", type: "path", range: "a file only its owner may read", defaultText: "none",
                    doc: "The token for commands over HTTP (Authorization: Bearer TOKEN), on the file's first line (or --http-token-env NAME).",
                    decode: { d, at, c in
            guard let n = at.node, !n.isNull, let text = d.string(n, at.key),
                  let path = d.localFile(text, n, at.key, want: .file) else { return }
            do {
                _ = try HTTPToken.fromFile(path)
                c.tokenFile = path
            } catch {
                d.report(n, at.key, "\(error)".replacingOccurrences(of: "http.token_file \(path): ", with: ""))
            }
        }, write: { c, w in c.tokenFile.map { .scalar(w.quote($0)) } }),
    ]
}
