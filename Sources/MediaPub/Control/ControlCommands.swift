import Foundation

/// What each control command does to a running broadcast (docs/control.md, Commands). A bad
/// command gets `{"ok":false,"error":"..."}` and changes nothing.
enum ControlCommands {
    static func handle(_ words: [String], broadcast: Broadcast) -> ControlReply {
        do {
            let command = try ControlCommand.parse(words, players: broadcast.players.map(\.id))
            return try run(command, broadcast: broadcast)
        } catch let failure as ControlFailure {
            return .failure(failure.message)
        } catch {
            return .failure("\(error)")
        }
    }

    private static func run(_ command: ControlCommand, broadcast b: Broadcast) throws -> ControlReply {
        /// Parsing checked that the player exists.
        func player(_ id: String) throws -> MediaPlayer {
            guard let p = b.player(id) else { throw ControlFailure("no player \"\(id.clipped())\"") }
            return p
        }
        switch command {
        case .status:
            return .status(b.status())
        case .publish(let on):
            b.publishing = on
        case .transport(let action, let id):
            let chosen = try id.map { [try player($0)] } ?? b.players
            for p in chosen {
                switch action {
                case .pause: p.pause()
                case .resume: p.resume()
                case .stop: p.stop()
                case .start: p.start()
                case .next: p.next()
                case .prev: p.previous()
                }
            }
        case .seek(let id, let ms, let given):
            let p = try player(id)
            // Past the end would end the item (and a single-source run): refused, the length said.
            if let length = p.durationMs, ms >= length {
                throw ControlFailure("seek: \(given.clipped()) is past the end of \(p.id)'s item (\(MediaTime.formatDuration(Double(length) / 1000)) long)")
            }
            guard p.seek(toMs: ms) else { throw ControlFailure("seek: \(p.id) cannot seek now (state \(p.currentState.rawValue))") }
            return .position(ms: p.positionMs)   // where it landed
        case .publishVolume(let id, let volume): try player(id).setPublishVolume(volume)
        case .playVolume(let id, let volume): try player(id).setPlayVolume(volume)
        case .muteLocal(let id, let on): try player(id).setMuteLocal(on)
        case .aux(let id, let on): try player(id).setAux(on)
        case .progressInterval(let id, let interval): try player(id).progressInterval = interval
        case .speed(let id, let speed): try player(id).setSpeed(speed)
        case .pitch(let id, let pitch): try player(id).setPitch(pitch)
        case .repeat(let id, let on): try player(id).setRepeat(on)
        case .load(let id, let given):
            return try load(try player(id), given, broadcast: b)
        case .reconnect(let output):
            try b.reconnect(output: output)
        case .quit:
            b.requestStop()
        case .schedule(let reload):
            if reload { try b.reloadSchedule() }
            guard let status = b.scheduleStatus() else { throw ControlFailure("schedule: this run has no programme") }
            return .schedule(status)
        case .skip:
            try b.skipBlock()
        case .live(let mode):
            guard let feed = b.liveFeed else { throw ControlFailure("live: this run has no live feed (live:)") }
            feed.setMode(mode)
        case .overlay(let request):
            try b.overlay(request)
        }
        return .ok
    }

    /// Answered once the load is known (playing, or why not), within a bounded wait.
    /// The player plays on until the new source takes over (docs/control.md `load`).
    private static func load(_ p: MediaPlayer, _ given: String, broadcast b: Broadcast) throws -> ControlReply {
        let source = PathResolution.resolveSource(given, base: b.preset.baseDirectory)
        // A source that cannot be opened (a missing local file, a typo) is refused before
        // the player is touched: what it plays goes on.
        do {
            try SourceSpec(source).checkReadable(source)
        } catch MediaPubError.sourceFailed(let named, let why) {
            throw ControlFailure("load: \(SecretMask.mask(url: named)): \(why)")
        } catch {
            throw ControlFailure("load: \(error)")
        }
        let ticket = p.load(source: source)
        switch p.waitForLoad(ticket, timeout: ControlServer.loadWait) {
        case .failed(let why): throw ControlFailure("load: \(why)")
        case .loading: return .loading
        case .done(let state): return .loaded(state, durationMs: p.durationMs)
        }
    }
}
