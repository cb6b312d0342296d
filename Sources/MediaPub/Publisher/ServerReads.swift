import Foundation

/// Whether a server's application reads what we send, not only whether its kernel
/// takes it in, told from one TCP socket (docs/presets.md, `reconnect.stall`). A
/// server that stops reading (frozen, SIGSTOPped) goes on acknowledging into its
/// receive buffer, minutes at a radio bitrate (its kernel grows that buffer as it
/// fills), but the receive window it advertises (TCP_INFO's `tcpi_snd_wnd`) never
/// opens again, and shrinks once the buffer's growth falls behind. One that reads
/// keeps it open, or opens it again. A value: told readings, it answers.
struct ServerReads: Equatable {
    /// The window the server advertised when it was last seen reading (the widest since
    /// it last opened it).
    private(set) var openWindow: Int?
    /// The window at the last reading.
    private(set) var previousWindow: Int?

    /// How far below `openWindow` a reading server's window may be: what it has not read
    /// yet when its kernel acknowledges (a packet or two, each costing it a few KB of
    /// buffer; on loopback the window goes a KB up and down while icecast2 reads).
    static let slack = 4096

    /// One reading of the socket: `kernelAcknowledged`, its TCP stack acknowledged more
    /// since the last reading; `window`, what it advertises now (nil when the kernel
    /// does not tell it: its acknowledgements alone judge). True when the server read:
    /// more acknowledged with the window opening, or within `slack` of `openWindow`.
    mutating func observe(window: Int?, kernelAcknowledged: Bool) -> Bool {
        guard let window else { return kernelAcknowledged }
        let opening = previousWindow.map { window > $0 } ?? false
        previousWindow = window
        guard kernelAcknowledged else { return false }
        if opening {
            openWindow = window   // it read: its window now is the one to keep
            return true
        }
        // Never lowered here: a window that shrinks by a little at a time is a server that stopped.
        guard window + Self.slack >= openWindow ?? 0 else { return false }
        openWindow = max(openWindow ?? 0, window)
        return true
    }
}
