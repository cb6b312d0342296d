import Foundation

/// `ctl overlay show|hide ID` and `ctl overlay set ID text=… image=… opacity=…`
/// (docs/control.md), read from its words; the overlay named is looked for when it runs.
struct OverlayRequest: Equatable, Sendable {
    enum Action: Equatable, Sendable {
        case show, hide
        /// What `set` changes (nil: left as it is).
        case set(text: String?, image: String?, opacity: Int?)
    }

    let id: String
    let action: Action

    static func parse(_ args: [String]) throws(ControlFailure) -> OverlayRequest {
        let usage = "overlay: expected show ID, hide ID or set ID text=… | image=… | opacity=N%"
        guard args.count >= 2 else { throw ControlFailure(usage) }
        let id = args[1]
        switch args[0] {
        case "show", "hide":
            guard args.count == 2 else { throw ControlFailure(usage) }
            return OverlayRequest(id: id, action: args[0] == "show" ? .show : .hide)
        case "set":
            guard args.count > 2 else { throw ControlFailure(usage) }
            var text: String?, image: String?, opacity: Int?
            for pair in args.dropFirst(2) {
                guard let eq = pair.firstIndex(of: "=") else { throw ControlFailure("overlay set: expected key=value, got \(pair.clipped())") }
                let value = String(pair[pair.index(after: eq)...])
                let key = String(pair[..<eq])
                switch key {
                case "text": text = value
                case "image": image = value
                case "opacity":
                    let digits = value.hasSuffix("%") ? String(value.dropLast()) : value
                    guard let v = Int(digits), (0...100).contains(v) else {
                        throw ControlFailure("overlay set: opacity \(value.clipped()) is not 0% to 100%")
                    }
                    opacity = v
                default: throw ControlFailure("overlay set: \(key.clipped()) is none of text, image, opacity")
                }
            }
            return OverlayRequest(id: id, action: .set(text: text, image: image, opacity: opacity))
        default:
            throw ControlFailure(usage)
        }
    }
}
