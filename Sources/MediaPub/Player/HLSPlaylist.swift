import Foundation

/// An HLS media playlist as far as the player needs it: its segments (absolute
/// URLs and times), whether it is endless (no `#EXT-X-ENDLIST`), its media sequence
/// and target duration. A master playlist is followed to its first variant.
struct HLSPlaylist: Equatable {
    struct Segment: Equatable {
        var url: String
        var startMs: Int
        var durationMs: Int
        var endMs: Int { startMs + durationMs }
    }

    /// The media playlist's own URL (the variant's, when the source was a master playlist).
    var url: String
    var segments: [Segment] = []
    var isEndless = true
    var mediaSequence = 0
    var targetDuration: Double = 0
    /// `#EXT-X-MAP`: the initialisation section of fMP4 segments.
    var initURL: String?
    /// `#EXT-X-KEY` other than NONE: the segments are encrypted.
    var isEncrypted = false

    /// The media sequence number of the last segment listed.
    var lastSequence: Int { mediaSequence + segments.count - 1 }

    /// The media sequence number of the segment a player joining the endless stream now
    /// starts at: the last one with three target durations or more from its start to
    /// the end (what hlsdemux does), the first one when the list is shorter.
    var endlessStartSequence: Int {
        let hold = Int((3 * targetDuration * 1000).rounded())
        var index = segments.count - 1
        var ahead = 0
        while index > 0 {
            ahead += segments[index].durationMs
            if ahead >= hold { break }
            index -= 1
        }
        return mediaSequence + max(0, index)
    }

    /// Whether `uri` names an HLS playlist by its extension (`.m3u8` over HTTP(S); a plain
    /// `.m3u` is a list of media URLs, not HLS).
    static func isPlaylist(_ uri: String) -> Bool {
        guard let scheme = PathResolution.sourceScheme(of: uri), ["http", "https"].contains(scheme) else { return false }
        let path = URL(string: uri)?.path ?? uri
        return (path as NSString).pathExtension.lowercased() == "m3u8"
    }

    /// Parses `text` read from `url`; nil when it is no HLS playlist.
    /// `variant` gets the first variant's URL when `text` is a master playlist.
    static func parse(_ text: String, url: String, variant: inout String?) -> HLSPlaylist? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var playlist = HLSPlaylist(url: url)
        var pendingDuration: Double?
        var expectVariant = false
        var time = 0.0
        for line in lines.dropFirst() where !line.isEmpty {
            if line.hasPrefix("#EXT-X-STREAM-INF") { expectVariant = true; continue }
            if line.hasPrefix("#EXT-X-ENDLIST") { playlist.isEndless = false; continue }
            if line.hasPrefix("#EXT-X-PLAYLIST-TYPE:VOD") { playlist.isEndless = false; continue }
            if let value = line.value(of: "#EXT-X-MEDIA-SEQUENCE:") {
                // Kept in 0...2^53, so that sums with segment counts cannot trap.
                playlist.mediaSequence = Int(value).map { max(0, min($0, 1 << 53)) } ?? 0
                continue
            }
            if let value = line.value(of: "#EXT-X-TARGETDURATION:") {
                // Kept finite and in range (0 when not): it paces a watch and is written back as an Int.
                playlist.targetDuration = Double(value).flatMap { $0.isFinite && $0 >= 0 && $0 <= 86_400 ? $0 : nil } ?? 0
                continue
            }
            if let value = line.value(of: "#EXTINF:") {
                pendingDuration = Double(value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? "")
                continue
            }
            if let value = line.value(of: "#EXT-X-KEY:") { playlist.isEncrypted = !value.contains("METHOD=NONE"); continue }
            if let value = line.value(of: "#EXT-X-MAP:"), let uri = value.attribute("URI") {
                playlist.initURL = resolve(uri, against: url); continue
            }
            if line.hasPrefix("#") { continue }
            guard let resolved = resolve(line, against: url) else { continue }
            if expectVariant {
                if variant == nil { variant = resolved }
                expectVariant = false
                continue
            }
            // A duration that is not a finite number in range counts as 0 (no trap on odd input).
            let seconds = pendingDuration.flatMap { $0.isFinite && $0 >= 0 && $0 < 86_400 ? $0 : nil } ?? 0
            let startMs = Int((time * 1000).rounded())
            time += seconds
            playlist.segments.append(Segment(url: resolved, startMs: startMs, durationMs: Int((time * 1000).rounded()) - startMs))
            pendingDuration = nil
        }
        return playlist
    }

    static func resolve(_ reference: String, against base: String) -> String? {
        URL(string: reference, relativeTo: URL(string: base))?.absoluteURL.absoluteString
    }

    /// Fetches and parses the playlist at `url`, following a master playlist to its first variant.
    static func fetch(_ url: String, timeout: TimeInterval = 10) throws -> HLSPlaylist {
        let fetch = try RemoteFetch()
        var location = url
        for _ in 0..<2 {
            let data = try fetch.get(location, timeout: timeout, limit: 4 << 20)
            var variant: String?
            guard let playlist = parse(String(decoding: data, as: UTF8.self), url: location, variant: &variant) else {
                throw MediaPubError.sourceFailed(url, "not an HLS playlist")
            }
            if playlist.segments.isEmpty, let variant {
                location = variant
                continue
            }
            return playlist
        }
        throw MediaPubError.sourceFailed(url, "a master playlist leads to another master playlist")
    }

    /// The whole presentation of the VOD playlist at `url` in memory (`memory: true`):
    /// its segments one after the other (MPEG-TS segments concatenate into one
    /// stream; fMP4 ones follow their `#EXT-X-MAP`). An endless playlist never ends and
    /// an encrypted one cannot be joined: both are refused. A segment that cannot be
    /// fetched is left out and reported to `skipped` (its 1-based number, the reason).
    static func fetchWhole(_ url: String, limit: Int = 512 << 20, skipped: (Int, Int, String) -> Void) throws -> Data {
        let playlist = try fetch(url)
        guard !playlist.isEndless else {
            throw MediaPubError.sourceFailed(url, "memory: true cannot hold a live HLS playlist (it never ends); drop memory: true")
        }
        guard !playlist.isEncrypted else {
            throw MediaPubError.sourceFailed(url, "memory: true cannot hold an encrypted HLS playlist; drop memory: true")
        }
        guard !playlist.segments.isEmpty else { throw MediaPubError.sourceFailed(url, "the HLS playlist lists no segments") }
        let fetch = try RemoteFetch()
        var data = Data()
        if let initURL = playlist.initURL { data = try fetch.get(initURL, limit: limit) }
        var got = 0
        for (index, segment) in playlist.segments.enumerated() {
            do {
                data.append(try fetch.get(segment.url, limit: max(0, limit - data.count)))
                got += 1
            } catch {
                let text = MediaPubError.reason(of: error)
                skipped(index + 1, playlist.segments.count, httpStatus(in: text) ?? text)
            }
        }
        guard got > 0 else { throw MediaPubError.sourceFailed(url, "none of the \(playlist.segments.count) HLS segments could be fetched") }
        return data
    }

    /// A VOD playlist of the segments from the one that holds `ms` on (absolute URLs),
    /// and where that segment starts (ms); nil when `ms` lies before the second segment
    /// or past the end. hlsdemux prerolls on a playlist's first segment before it can
    /// seek: one that cannot be fetched would fail the session that was to skip it.
    func trimmed(fromMs ms: Int) -> (text: String, startMs: Int)? {
        guard !isEndless, let index = segments.lastIndex(where: { $0.startMs <= ms }), index > 0,
              ms < segments[index].endMs else { return nil }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(Int(targetDuration.rounded(.up)))",
                     "#EXT-X-MEDIA-SEQUENCE:\(mediaSequence + index)", "#EXT-X-PLAYLIST-TYPE:VOD"]
        if let initURL { lines.append("#EXT-X-MAP:URI=\"\(initURL)\"") }
        for segment in segments[index...] {
            lines.append("#EXTINF:\(Double(segment.durationMs) / 1000),")
            lines.append(segment.url)
        }
        lines.append("#EXT-X-ENDLIST")
        return (lines.joined(separator: "\n") + "\n", segments[index].startMs)
    }

    /// The segment named in `text` (an error's text quotes the URL it failed on), as its index.
    func segmentIndex(namedIn text: String) -> Int? {
        var best: (index: Int, length: Int)?
        for (index, segment) in segments.enumerated() where text.contains(segment.url) {
            if best.map({ segment.url.count > $0.length }) ?? true { best = (index, segment.url.count) }
        }
        return best?.index
    }

    /// `404 Not Found`, from the HTTP status an error's text quotes (GStreamer's "… (404), URL: …",
    /// libcurl's "The requested URL returned error: 404"); nil when none.
    static func httpStatus(in text: String) -> String? {
        guard let range = text.range(of: #"(\(|returned error: )[1-5][0-9][0-9]\b"#, options: .regularExpression) else { return nil }
        let code = String(text[range].suffix(3))
        let reasons = ["400": "Bad Request", "401": "Unauthorized", "403": "Forbidden", "404": "Not Found", "410": "Gone",
                       "429": "Too Many Requests", "500": "Internal Server Error", "502": "Bad Gateway",
                       "503": "Service Unavailable", "504": "Gateway Timeout"]
        return reasons[code].map { "\(code) \($0)" } ?? "HTTP \(code)"
    }
}

private extension String {
    /// The text after `tag` when the line starts with it.
    func value(of tag: String) -> String? {
        hasPrefix(tag) ? String(dropFirst(tag.count)) : nil
    }

    /// `NAME="value"` in an attribute list.
    func attribute(_ name: String) -> String? {
        guard let start = range(of: name + "=\"") else { return nil }
        let rest = self[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
