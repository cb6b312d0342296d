/// Which commands a control command waits for (docs/control.md, "Ordering"): those
/// of its own lane, one at a time in the order the socket received them, and no
/// other. A read waits for no command that changes anything.
enum ControlLane: Hashable, Sendable {
    /// `status`, `schedule`, and words that name no command (answered with an error at once).
    case read
    /// A command that names a player (`seek music 90s`, `load music x.mp3`, `pause music`).
    case player(String)
    /// A command on the whole run: `publish`, `reconnect`, `quit`, `schedule reload`, `skip`, `live`, `overlay`, a transport for every player.
    case run

    /// The lane of a request's words, read before anything runs (a player named that
    /// does not exist is refused in its lane, at once).
    static func of(_ words: [String]) -> ControlLane {
        guard let name = words.first, ControlCommand.names.contains(where: { $0.contains(name) }), name != "status",
              words != ["schedule"] else {
            return .read
        }
        if ["publish", "reconnect", "quit", "schedule", "skip", "live", "overlay"].contains(name) { return .run }
        // Every other command names its player first; a transport may name none (every player).
        return words.count > 1 ? .player(words[1]) : .run
    }
}
