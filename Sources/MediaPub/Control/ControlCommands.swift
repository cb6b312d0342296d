import Foundation

/// What each control command does to a running broadcast (SPEC §6). A bad
/// command gets `{"ok":false,"error":"..."}` and changes nothing.
enum ControlCommands {
    struct Failure: Error { let message: String }

    static func handle(_ request: [String: Any], broadcast: Broadcast) -> [String: Any] {
        let given: [Any]
        if let list = request["command"] as? [Any] {
            given = list
        } else if let name = request["command"] as? String {
            given = [name] + ((request["args"] as? [Any]) ?? [])
        } else {
            return ["ok": false, "error": "missing \"command\" (e.g. {\"command\":[\"status\"]})"]
        }
        // Words are strings, numbers or booleans as JSON has them; never an object or a list.
        var words: [String] = []
        for word in given {
            switch word {
            case let s as String: words.append(s)
            case let n as NSNumber where String(cString: n.objCType) == "c": words.append(n.boolValue ? "on" : "off")   // true, false
            case let n as NSNumber: words.append(n.stringValue)
            default:
                return ["ok": false, "error": "command words are strings or numbers, not \(word is [Any] ? "a list" : word is NSNull ? "null" : "an object")"]
            }
        }
        do {
            return try run(words, broadcast: broadcast)
        } catch let failure as Failure {
            return ["ok": false, "error": failure.message]
        } catch {
            return ["ok": false, "error": "\(error)"]
        }
    }

    private static func run(_ words: [String], broadcast b: Broadcast) throws -> [String: Any] {
        guard let name = words.first else { throw Failure(message: "empty command") }
        let args = Array(words.dropFirst())
        func player(_ index: Int) throws -> MediaPlayer {
            guard index < args.count else { throw Failure(message: "\(name): which player? (\(b.players.map(\.id).joined(separator: ", ")))") }
            guard let p = b.player(args[index]) else { throw Failure(message: "\(name): no player \"\(args[index].clipped())\"") }
            return p
        }
        func players() throws -> [MediaPlayer] { args.isEmpty ? b.players : [try player(0)] }
        /// A finite number (never nan or inf): checked before any conversion.
        func number(_ index: Int, _ what: String) throws -> Double {
            guard index < args.count, let value = Double(args[index]) else { throw Failure(message: "\(name): \(what) must be a number") }
            guard value.isFinite else { throw Failure(message: "\(name): \(args[index].clipped()) is not a finite number") }
            return value
        }
        func onOff(_ index: Int) throws -> Bool {
            guard index < args.count else { throw Failure(message: "\(name): on or off?") }
            switch args[index].lowercased() {
            case "on", "true", "yes", "1": return true
            case "off", "false", "no", "0": return false
            default: throw Failure(message: "\(name): expected on or off, got \(args[index].clipped())")
            }
        }
        let ok: [String: Any] = ["ok": true]
        switch name {
        case "status":
            return ["ok": true, "status": b.status()]
        case "publish":
            b.publishing = try onOff(0)
            return ok
        case "pause": for p in try players() { p.pause() }; return ok
        case "resume": for p in try players() { p.resume() }; return ok
        case "stop": for p in try players() { p.stop() }; return ok
        case "start": for p in try players() { p.start() }; return ok
        case "next": for p in try players() { p.next() }; return ok
        case "prev": for p in try players() { p.previous() }; return ok
        case "seek":
            let p = try player(0)
            guard args.count > 1 else { throw Failure(message: "seek: expected a position such as 90s or 1:30") }
            let seconds: TimeInterval
            switch MediaTime.duration(args[1]) {
            case .success(let value): seconds = value
            case .failure(.tooLong):
                throw Failure(message: "seek: \(args[1].clipped()) is too far (at most \(MediaTime.maxDurationText))")
            case .failure:
                throw Failure(message: "seek: expected a position such as 90s or 1:30, got \(args[1].clipped())")
            }
            // At most maxDuration: the milliseconds (and the nanoseconds below) fit.
            let ms = Int((seconds * 1000).rounded())
            // Past the end would end the item (and a single-source run): refused, the length said.
            if let length = p.durationMs, ms >= length {
                throw Failure(message: "seek: \(args[1].clipped()) is past the end of \(p.id)'s item (\(MediaTime.formatDuration(Double(length) / 1000)) long)")
            }
            guard p.seek(toMs: ms) else { throw Failure(message: "seek: \(p.id) cannot seek now (state \(p.currentState.rawValue))") }
            return ["ok": true, "position_ms": p.positionMs]   // where it landed
        case "volume", "publish-volume", "publish_volume", "play-volume", "play_volume":
            let p = try player(0)
            let v = try number(1, "volume")
            let range = PlayerConfig.volumeRange
            // Range-checked as a Double: Int(1e19) would trap.
            guard v >= Double(range.lowerBound), v <= Double(range.upperBound) else {
                throw Failure(message: "\(name): \(args[1].clipped()) is out of range \(range.lowerBound)..\(range.upperBound)")
            }
            if name.hasPrefix("play") { p.setPlayVolume(Int(v)) } else { p.setPublishVolume(Int(v)) }
            return ok
        case "mute-local", "mute_local":
            let p = try player(0)
            p.setMuteLocal(try onOff(1))
            return ok
        case "aux":
            let p = try player(0)
            p.setAux(try onOff(1))
            return ok
        case "progress-interval", "progress_interval":
            let p = try player(0)
            guard args.count > 1, case .success(let interval) = MediaTime.duration(args[1]) else {
                throw Failure(message: "\(name): expected a duration such as 500ms or 2s")
            }
            let range = PlayerConfig.progressIntervalRange
            guard range.contains(interval) else {
                throw Failure(message: "\(name): \(args[1].clipped()) is out of range \(MediaTime.formatDuration(range.lowerBound))..\(MediaTime.formatDuration(range.upperBound))")
            }
            p.progressInterval = interval
            return ok
        case "speed":
            let p = try player(0)
            try p.setSpeed(try number(1, "speed"))
            return ok
        case "pitch":
            let p = try player(0)
            try p.setPitch(try number(1, "pitch"))
            return ok
        case "repeat":
            let p = try player(0)
            p.setRepeat(try onOff(1))
            return ok
        case "load":
            let p = try player(0)
            guard args.count > 1 else { throw Failure(message: "load: which source?") }
            let source = PathResolution.resolveSource(args[1], base: b.preset.baseDirectory)
            do { _ = try SourceSpec(source) } catch { throw Failure(message: "load: \(error)") }
            p.load(source: source)
            // Answered once the load is known (playing, or why not), within a bounded wait.
            let outcome = p.waitForLoad(timeout: 10)
            switch outcome.state {
            case .error:
                throw Failure(message: "load: \(outcome.error ?? "\(p.id) could not load it")")
            case .loading:
                return ["ok": true, "state": "loading"]   // still on its way (a slow server): events follow
            default:
                var reply: [String: Any] = ["ok": true, "state": outcome.state.rawValue]
                reply["duration_ms"] = p.durationMs ?? NSNull()
                return reply
            }
        case "reconnect":
            try b.reconnect(output: args.first)
            return ok
        case "quit":
            b.requestStop()
            return ok
        default:
            throw Failure(message: "unknown command \"\(name.clipped())\" (status, publish, pause, resume, stop, start, next, prev, seek, volume, play-volume, mute-local, aux, speed, pitch, repeat, progress-interval, load, reconnect, quit)")
        }
    }
}
