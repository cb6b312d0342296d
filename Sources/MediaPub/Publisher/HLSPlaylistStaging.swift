import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where hlssink2 writes an HLS playlist, and how it reaches its real name
/// (docs/presets.md, Outputs). hlssink2 replaces the file through GIO, which
/// renames what it wrote over the file even when the write failed (a full disk:
/// an empty playlist), and writes in place when it cannot make a file beside it.
/// So it writes a hidden file beside the playlist, `.index.m3u8.next`, and that
/// file is renamed over the playlist only when it holds a whole playlist: a
/// viewer never sees one cut short or emptied.
enum HLSPlaylistStaging {
    /// The hidden file hlssink2 writes for `playlist`.
    static func path(for playlist: String) -> String {
        let folder = (playlist as NSString).deletingLastPathComponent
        return (folder as NSString).appendingPathComponent(".\((playlist as NSString).lastPathComponent).next")
    }

    /// Whether `text` is a whole playlist: it begins `#EXTM3U` and ends with a segment's
    /// line (ended) or `#EXT-X-ENDLIST` (hlssink2 ends none after it); a write cut short
    /// ends anywhere else.
    static func isWhole(_ text: String) -> Bool {
        guard text.hasPrefix("#EXTM3U") else { return false }
        if text.hasSuffix("#EXT-X-ENDLIST") || text.hasSuffix("#EXT-X-ENDLIST\n") { return true }
        let last = text.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        return text.hasSuffix("\n") && !last.isEmpty && !last.hasPrefix("#")
    }

    /// Moves what hlssink2 wrote over the playlist when it is whole; otherwise the
    /// playlist stays as it was. True when the playlist was replaced.
    @discardableResult
    static func publish(_ playlist: String) -> Bool {
        let staged = path(for: playlist)
        // A playlist is a few KB; more is no playlist of ours.
        guard let handle = FileHandle(forReadingAtPath: staged) else { return false }
        let data = (try? handle.read(upToCount: 1 << 20)) ?? nil
        try? handle.close()
        guard let data, isWhole(String(decoding: data, as: UTF8.self)) else { return false }
        return rename(staged, playlist) == 0
    }

    /// The run ends: what is left of the hidden file goes.
    static func discard(_ playlist: String) {
        unlink(path(for: playlist))
    }
}
