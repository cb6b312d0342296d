import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An AAC mount's source login, made by us on a socket of our own that `fdsink` then
/// writes the ADTS stream to (docs/presets.md, Icecast). libshout, behind shout2send,
/// knows MP3, Ogg and WebM only, and its MP3 parser cuts out what it takes for broken
/// MP3 frames: ADTS went to listeners with bytes missing and frames broken. Here the
/// stream goes as it is, under its own type (`audio/aac`); the titles go as libshout
/// sends them (`IcecastRequest`, Output+Icecast.swift). An MP3 or Opus mount's login is
/// tried here too before shout2send's (`tryOut`).
enum IcecastLogin {
    /// The server refused the mount or the login (`why`, in its words): retried on the slow end of the backoff.
    static func refused(_ why: String) -> OutputFailure { OutputFailure("rejected: \(why)", .refused) }

    /// A socket to `endpoint`'s server logged in as a source at its mount, within
    /// `deadline`; throws the server's refusal (`refused`) or why the login got no answer to go by.
    static func open(_ endpoint: IcecastEndpoint, deadline: TimeInterval) throws -> Int32 {
        let until = MonotonicInstant.now.addingTimeInterval(deadline)
        guard let fd = IcecastRequest.connect(endpoint, until: until) else {
            throw OutputFailure("connect: no TCP connection to the server for \(MediaTime.formatDuration(deadline))", .connectTimeout)
        }
        var head = "SOURCE \(IcecastRequest.path(endpoint.mount)) HTTP/1.0\r\n"
            + "Authorization: \(IcecastRequest.basic(endpoint.user, endpoint.password))\r\n"
            + "Host: \(endpoint.host):\(endpoint.port)\r\nUser-Agent: mediapub\r\nContent-Type: \(endpoint.contentType)\r\nice-public: 0\r\n"
        for (key, value) in [("name", endpoint.name), ("description", endpoint.description), ("genre", endpoint.genre)] where !value.isEmpty {
            head += "ice-\(key): \(headerValue(value))\r\n"
        }
        guard let (answer, closed) = IcecastRequest.exchange(fd, head + "\r\n", until: until, headOnly: true) else {
            close(fd)
            throw OutputFailure("connect: the server took no request", .connectTimeout)
        }
        if let (code, words) = IcecastMountCheck.status(of: answer), (200..<300).contains(code) { return fd }
        close(fd)
        if let (code, words) = IcecastMountCheck.status(of: answer) {
            throw refused(code == 401 ? "the server refused the source login: \(words)" : "the server refused the mount: \(words)")
        }
        if answer.isEmpty, closed { throw refused("the server closed the connection without answering the mount's request") }
        throw answer.isEmpty ? OutputFailure("connect: the server answered nothing for \(MediaTime.formatDuration(deadline))", .connectTimeout)
                             : OutputFailure("connect: the server answered no HTTP", .badAnswer)
    }

    /// Logs in as `open` does and lets the mount go again at once, for a login libshout
    /// then makes (Output+Icecast.swift): throws as `open` does. Icecast (2.4) frees the
    /// mount as its source thread ends, once it has seen our end of the connection and
    /// closed its own (the two steps follow each other on that thread): so our side is shut
    /// down for writing and the server's close is awaited (within `deadline`), else
    /// libshout's login that follows could be told "Mountpoint in use".
    static func tryOut(_ endpoint: IcecastEndpoint, deadline: TimeInterval) throws {
        let fd = try open(endpoint, deadline: deadline)
        defer { close(fd) }
        _ = shutdown(fd, Int32(SHUT_WR))
        let until = MonotonicInstant.now.addingTimeInterval(deadline)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var scrap = [UInt8](repeating: 0, count: 512)
        while poll(&p, 1, Int32(max(0, until.timeIntervalSinceNow * 1000))) == 1, recv(fd, &scrap, scrap.count, 0) > 0 {}
    }

    /// The now-playing title (`artist - title`) of `endpoint`'s mount, as libshout sets it
    /// (Icecast's metadata request, with the source's password), within `deadline`. Nil
    /// when it was taken, else why not.
    static func setTitle(_ song: String, of endpoint: IcecastEndpoint, deadline: TimeInterval) -> String? {
        let until = MonotonicInstant.now.addingTimeInterval(deadline)
        guard let fd = IcecastRequest.connect(endpoint, until: until) else { return "no TCP connection to the server" }
        defer { close(fd) }
        let request = "GET \(metadataPath(song: song, mount: endpoint.mount)) HTTP/1.0\r\n"
            + "Authorization: \(IcecastRequest.basic(endpoint.user, endpoint.password))\r\n"
            + "Host: \(endpoint.host):\(endpoint.port)\r\nUser-Agent: mediapub\r\n\r\n"
        guard let (answer, _) = IcecastRequest.exchange(fd, request, until: until, headOnly: false) else { return "the server took no request" }
        guard let (code, words) = IcecastMountCheck.status(of: answer) else { return "no HTTP answer" }
        return (200..<300).contains(code) ? nil : words
    }

    /// The metadata request's path and query, each value escaped whole (a title with `&`,
    /// `=`, `+` or `#` is one value).
    static func metadataPath(song: String, mount: String) -> String {
        var unreserved = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        unreserved.insert(charactersIn: "-._~")
        func escaped(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        return "/admin/metadata?mode=updinfo&charset=UTF-8&mount=\(escaped(mount))&song=\(escaped(song))"
    }

    /// A header's value on one line: a control character is a space.
    private static func headerValue(_ value: String) -> String {
        String(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    }
}
