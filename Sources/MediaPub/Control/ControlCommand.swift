import Foundation

/// Why a control command was refused: `{"ok":false,"error":message}`.
struct ControlFailure: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One control command (docs/control.md), read from its words (`["seek", "music", "90s"]`)
/// and checked before anything runs: the players named exist, numbers are
/// finite and in range, on/off is on or off. What depends on the moment
/// (a seek past the end, a source that does not load) is checked when it runs.
enum ControlCommand: Equatable, Sendable {
    /// pause, resume, stop, start, next, prev: one player, or every one when none is named.
    enum Transport: String, Sendable, CaseIterable { case pause, resume, stop, start, next, prev }

    case status
    case publish(Bool)
    case transport(Transport, player: String?)
    /// `given` is the position as typed, for messages.
    case seek(player: String, ms: Int, given: String)
    case publishVolume(player: String, Int)
    case playVolume(player: String, Int)
    case muteLocal(player: String, Bool)
    case aux(player: String, Bool)
    case progressInterval(player: String, TimeInterval)
    case speed(player: String, Double)
    case pitch(player: String, Double)
    case `repeat`(player: String, Bool)
    case load(player: String, source: String)
    case reconnect(output: String?)
    case quit
    /// `schedule`: the programme now; `schedule reload`: its file read again.
    case schedule(reload: Bool)
    /// The programme's next block, now.
    case skip
    /// `live on|off|auto`: the live feed on air whenever it delivers, kept off air, or as `live:` says.
    case live(LiveFeedSwitch.Mode)
    /// `overlay show|hide ID`, `overlay set ID key=value…` (docs/control.md).
    case overlay(OverlayRequest)

    /// Every command name (with the spellings each also answers to).
    static let names: [[String]] = [
        ["status"], ["publish"], ["pause"], ["resume"], ["stop"], ["start"], ["next"], ["prev"], ["seek"],
        ["volume", "publish-volume", "publish_volume"], ["play-volume", "play_volume"], ["mute-local", "mute_local"],
        ["aux"], ["speed"], ["pitch"], ["repeat"], ["progress-interval", "progress_interval"], ["load"], ["reconnect"], ["quit"],
        ["schedule"], ["skip"], ["live"], ["overlay"],
    ]

    /// The command `words` say, for a run whose players are `players` (their ids).
    static func parse(_ words: [String], players: [String]) throws(ControlFailure) -> ControlCommand {
        guard let name = words.first else { throw ControlFailure("empty command") }
        let args = Array(words.dropFirst())
        func player(_ index: Int) throws(ControlFailure) -> String {
            guard index < args.count else { throw ControlFailure("\(name): which player? (\(players.joined(separator: ", ")))") }
            guard players.contains(args[index]) else { throw ControlFailure("\(name): no player \"\(args[index].clipped())\"") }
            return args[index]
        }
        /// A finite number (never nan or inf): checked before any conversion.
        func number(_ index: Int, _ what: String) throws(ControlFailure) -> Double {
            guard index < args.count, let value = Double(args[index]) else { throw ControlFailure("\(name): \(what) must be a number") }
            guard value.isFinite else { throw ControlFailure("\(name): \(args[index].clipped()) is not a finite number") }
            return value
        }
        func onOff(_ index: Int) throws(ControlFailure) -> Bool {
            guard index < args.count else { throw ControlFailure("\(name): on or off?") }
            switch args[index].lowercased() {
            case "on", "true", "yes", "1": return true
            case "off", "false", "no", "0": return false
            default: throw ControlFailure("\(name): expected on or off, got \(args[index].clipped())")
            }
        }
        if let transport = Transport(rawValue: name) {
            return .transport(transport, player: args.isEmpty ? nil : try player(0))
        }
        switch name {
        case "status": return .status
        case "publish": return .publish(try onOff(0))
        case "seek":
            let p = try player(0)
            guard args.count > 1 else { throw ControlFailure("seek: expected a position such as 90s or 1:30") }
            switch MediaTime.duration(args[1]) {
            // At most maxDuration: the milliseconds (and the nanoseconds after them) fit.
            case .success(let seconds): return .seek(player: p, ms: Int((seconds * 1000).rounded()), given: args[1])
            case .failure(.tooLong):
                throw ControlFailure("seek: \(args[1].clipped()) is too far (at most \(MediaTime.maxDurationText))")
            case .failure:
                throw ControlFailure("seek: expected a position such as 90s or 1:30, got \(args[1].clipped())")
            }
        case "volume", "publish-volume", "publish_volume", "play-volume", "play_volume":
            let p = try player(0)
            let v = try number(1, "volume")
            let range = PlayerConfig.volumeRange
            // Range-checked as a Double: Int(1e19) would trap.
            guard v >= Double(range.lowerBound), v <= Double(range.upperBound) else {
                throw ControlFailure("\(name): \(args[1].clipped()) is out of range \(range.lowerBound)..\(range.upperBound)")
            }
            return name.hasPrefix("play") ? .playVolume(player: p, Int(v)) : .publishVolume(player: p, Int(v))
        case "mute-local", "mute_local": return .muteLocal(player: try player(0), try onOff(1))
        case "aux": return .aux(player: try player(0), try onOff(1))
        case "progress-interval", "progress_interval":
            let p = try player(0)
            guard args.count > 1, case .success(let interval) = MediaTime.duration(args[1]) else {
                throw ControlFailure("\(name): expected a duration such as 500ms or 2s")
            }
            let range = PlayerConfig.progressIntervalRange
            guard range.contains(interval) else {
                throw ControlFailure("\(name): \(args[1].clipped()) is out of range \(MediaTime.formatDuration(range.lowerBound))..\(MediaTime.formatDuration(range.upperBound))")
            }
            return .progressInterval(player: p, interval)
        case "speed": return .speed(player: try player(0), try number(1, "speed"))
        case "pitch": return .pitch(player: try player(0), try number(1, "pitch"))
        case "repeat": return .repeat(player: try player(0), try onOff(1))
        case "load":
            let p = try player(0)
            guard args.count > 1 else { throw ControlFailure("load: which source?") }
            return .load(player: p, source: args[1])
        case "reconnect": return .reconnect(output: args.first)
        case "quit": return .quit
        case "schedule":
            guard let what = args.first else { return .schedule(reload: false) }
            guard what == "reload", args.count == 1 else {
                throw ControlFailure("schedule: expected nothing or reload, got \(args.joined(separator: " ").clipped())")
            }
            return .schedule(reload: true)
        case "skip": return .skip
        case "live":
            guard args.count == 1, let mode = LiveFeedSwitch.Mode(rawValue: args[0].lowercased()) else {
                throw ControlFailure("live: expected on, off or auto")
            }
            return .live(mode)
        case "overlay": return .overlay(try OverlayRequest.parse(args))
        default:
            throw ControlFailure("unknown command \"\(name.clipped())\" (\(names.map { $0[0] }.joined(separator: ", ")))")
        }
    }
}
