import Foundation
import CSoup

/// The token that commands over HTTP need (docs/http.md, The token): from an
/// environment variable (`--http-token-env NAME`) or a file only its owner may read
/// (`http.token_file`). Compared in constant time; never shown.
public struct HTTPToken: Sendable, CustomStringConvertible {
    /// SHA-256 of the token: a presented token is hashed and compared byte by byte, all of
    /// them, so the time taken says nothing of the token (not even its length).
    private let digest: [UInt8]

    public var description: String { "HTTPToken(****)" }

    init(_ token: String) { digest = HTTPToken.sha256(token) }

    /// The token in environment variable `name`, or why not (one line, the variable named).
    public static func fromEnvironment(_ name: String, _ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HTTPToken {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            throw MediaPubError.usage("--http-token-env \(name): the environment variable \(name) is not set (it should hold the token)")
        }
        return HTTPToken(value)
    }

    /// The most a token file may hold.
    static let maxFileBytes = 4096

    /// The token on the first line of `path`, a regular file that only its owner may read or
    /// write (0600, 0400); else why not, the path named.
    public static func fromFile(_ path: String) throws -> HTTPToken {
        // Opened first (without blocking: a FIFO put there never holds the run), then checked
        // on the descriptor: what is read is what was checked, and a file over the bound is
        // never read at all.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw MediaPubError.usage("http.token_file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw MediaPubError.usage("http.token_file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw MediaPubError.usage("http.token_file \(path): not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw MediaPubError.usage("http.token_file \(path): others may read it (mode \(String(info.st_mode & 0o777, radix: 8))); make it owner-only: chmod 600 \(path)")
        }
        guard info.st_size <= maxFileBytes else {
            throw MediaPubError.usage("http.token_file \(path): \(info.st_size) bytes, over \(maxFileBytes / 1024) KiB")
        }
        var bytes = [UInt8](repeating: 0, count: maxFileBytes + 1)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0, count <= maxFileBytes else {
            throw MediaPubError.usage("http.token_file \(path): cannot read it (or it is over \(maxFileBytes / 1024) KiB)")
        }
        let data = bytes.prefix(count)
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw MediaPubError.usage("http.token_file \(path): empty (it should hold the token on its first line)") }
        return HTTPToken(token)
    }

    /// Whether an `Authorization` header's value is `Bearer` and this token.
    func matches(authorization: String?) -> HTTPAccess.Presented {
        guard let authorization else { return .none }
        let prefix = "bearer "
        guard authorization.count > prefix.count, authorization.lowercased().hasPrefix(prefix) else { return .wrong }
        return matches(String(authorization.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)) ? .right : .wrong
    }

    /// Whether `presented` is the token, in a time that does not depend on it.
    func matches(_ presented: String) -> Bool {
        let other = HTTPToken.sha256(presented)
        var difference: UInt8 = 0
        for i in 0..<digest.count { difference |= digest[i] ^ other[i] }
        return difference == 0
    }

    private static func sha256(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        let checksum = g_checksum_new(G_CHECKSUM_SHA256)
        defer { g_checksum_free(checksum) }
        bytes.withUnsafeMutableBufferPointer { g_checksum_update(checksum, $0.baseAddress, gssize($0.count)) }
        var out = [UInt8](repeating: 0, count: 32)
        var length = gsize(out.count)
        out.withUnsafeMutableBufferPointer { g_checksum_get_digest(checksum, $0.baseAddress, &length) }
        return out
    }
}
