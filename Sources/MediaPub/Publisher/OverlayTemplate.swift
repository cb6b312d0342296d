import Foundation

/// A text overlay's template (docs/presets.md, overlays): literal text with fields in
/// braces, `{player.ID.title}` (or `artist`, `album`, `file`), `{block}` and
/// `{clock:%H:%M}`; `{{` and `}}` are braces. A field with no value is empty. It renders
/// as Pango markup, what textoverlay reads: every field's value escaped (a media file's
/// tags never steer what is drawn), the literal text too unless the overlay has `markup: true`.
struct OverlayTemplate: Equatable, Sendable {
    enum PlayerField: String, Sendable, CaseIterable { case title, artist, album, file }

    enum Part: Equatable, Sendable {
        case literal(String)
        case player(id: String, PlayerField)
        case block
        case clock([ClockPart])
    }

    enum ClockPart: Equatable, Sendable {
        case literal(String)
        case field(Character)
    }

    /// The strftime conversions a clock takes.
    static let clockFields: Set<Character> = ["H", "M", "S", "I", "p", "Y", "y", "m", "d", "e", "a", "A", "b", "B", "j", "z"]

    let parts: [Part]

    /// The most characters a template, and the text it renders (its values cut there), has.
    static let maxLength = 4096

    /// What one tick's text is made of: the values each field takes now.
    struct Values {
        var players: [String: (tags: NowPlaying, file: String)] = [:]
        var block: String?
        var clock: ZonedTime?
    }

    var needsClock: Bool { parts.contains { if case .clock = $0 { true } else { false } } }
    var needsBlock: Bool { parts.contains(.block) }
    var players: Set<String> {
        Set(parts.compactMap { if case .player(let id, _) = $0 { id } else { nil } })
    }

    /// The template `text` is, or why it is none (`players`: the run's player ids).
    static func parse(_ text: String, players: [String]) -> Result<OverlayTemplate, PresetTextRefusal> {
        guard text.count <= maxLength else {
            return .failure(.init("\(text.count) characters: a text has at most \(maxLength)"))
        }
        var parts: [Part] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if (c == "{" || c == "}"), next < text.endIndex, text[next] == c {
                literal.append(c)
                i = text.index(after: next)
                continue
            }
            if c == "}" { return .failure(.init("a } with no { before it (write }} for a brace)")) }
            guard c == "{" else { literal.append(c); i = next; continue }
            guard let close = text[next...].firstIndex(of: "}") else {
                return .failure(.init("a { with no } after it (write {{ for a brace)"))
            }
            let name = String(text[next..<close])
            switch Self.field(name, players: players) {
            case .success(let part):
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(part)
            case .failure(let why): return .failure(why)
            }
            i = text.index(after: close)
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return .success(OverlayTemplate(parts: parts))
    }

    private static func field(_ field: String, players: [String]) -> Result<Part, PresetTextRefusal> {
        if field == "block" { return .success(.block) }
        if field == "clock" || field.hasPrefix("clock:") {
            return clock(field == "clock" ? "%H:%M" : String(field.dropFirst(6))).map(Part.clock)
        }
        let words = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if words.count == 3, words[0] == "player" {
            guard players.contains(words[1]) else {
                return .failure(.init("{\(field.clipped())}: no player \"\(words[1].clipped())\" (\(players.joined(separator: ", ")))"))
            }
            guard let what = PlayerField(rawValue: words[2]) else {
                return .failure(.init("{\(field.clipped())}: a player's title, artist, album or file"))
            }
            return .success(.player(id: words[1], what))
        }
        return .failure(.init("{\(field.clipped())} is no field ({player.ID.title|artist|album|file}, {block}, {clock:%H:%M})"))
    }

    private static func clock(_ format: String) -> Result<[ClockPart], PresetTextRefusal> {
        var parts: [ClockPart] = []
        var literal = ""
        var percent = false
        for c in format {
            if percent {
                percent = false
                if c == "%" { literal.append(c); continue }
                guard clockFields.contains(c) else {
                    return .failure(.init("{clock:\(format.clipped())}: %\(c) is none of %H %M %S %I %p %Y %y %m %d %e %a %A %b %B %j %z %%"))
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(.field(c))
            } else if c == "%" {
                percent = true
            } else {
                literal.append(c)
            }
        }
        if percent { return .failure(.init("{clock:\(format.clipped())} ends with a lone %")) }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return .success(parts)
    }

    /// The text to draw, as Pango markup: each value escaped, and the literal text too
    /// unless `markup` (the overlay's `markup: true`). At most `maxLength` characters of
    /// text are drawn: a value that would pass them is cut there. With `markup` the
    /// preset's own words (markup) are never cut, since a cut tag, or one left unclosed,
    /// is markup textoverlay draws nothing of: the values share the room they leave, and
    /// only an escaped value is ever cut.
    func render(_ values: Values, markup: Bool = false) -> String {
        let reserved = markup ? parts.reduce(0) { if case .literal(let s) = $1 { $0 + s.count } else { $0 } } : 0
        var out = "", length = 0
        func add(_ s: String, literal: Bool) {
            if literal && markup { out += s; return }
            let room = Self.maxLength - reserved - length
            guard room > 0 else { return }
            let s = s.count > room ? String(s.prefix(room)) : s
            length += s.count
            out += Self.escaped(s)
        }
        for part in parts {
            switch part {
            case .literal(let s): add(s, literal: true)
            case .block: add(values.block ?? "", literal: false)
            case .player(let id, let what):
                guard let p = values.players[id] else { continue }
                switch what {
                case .title: add(p.tags.title ?? "", literal: false)
                case .artist: add(p.tags.artist ?? "", literal: false)
                case .album: add(p.tags.album ?? "", literal: false)
                case .file: add((p.file as NSString).lastPathComponent, literal: false)
                }
            case .clock(let format):
                if let time = values.clock { add(Self.format(time, format), literal: false) }
            }
        }
        return out
    }

    /// `s` as Pango markup shows it: `&`, `<`, `>`, `'` and `"` as entities.
    static func escaped(_ s: String) -> String {
        guard s.contains(where: { entities[$0] != nil }) else { return s }
        return s.map { entities[$0] ?? String($0) }.joined()
    }

    private static let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", "\"": "&quot;"]

    /// Why the literal text is not markup textoverlay can draw (`markup: true`); nil when it is.
    /// Checked with its fields empty (their values are escaped, so they never change that).
    var markupRefusal: PresetTextRefusal? {
        let literal = parts.map { if case .literal(let s) = $0 { s } else { "" } }.joined()
        return PangoMarkup.refusal(literal).map { PresetTextRefusal("not markup that can be drawn: \($0) (or drop markup: true)") }
    }

    static let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    static func format(_ time: ZonedTime, _ format: [ClockPart]) -> String {
        let t = time.local, d = time.local.date
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var out = ""
        for part in format {
            switch part {
            case .literal(let s): out += s
            case .field(let c):
                switch c {
                case "H": out += two(t.hour)
                case "M": out += two(t.secondOfDay / 60 % 60)
                case "S": out += two(t.secondOfDay % 60)
                case "I": out += two(t.hour % 12 == 0 ? 12 : t.hour % 12)
                case "p": out += t.hour < 12 ? "AM" : "PM"
                case "Y": out += "\(d.year)"
                case "y": out += two(d.year % 100)
                case "m": out += two(d.month)
                case "d": out += two(d.day)
                case "e": out += d.day < 10 ? " \(d.day)" : "\(d.day)"
                case "a": out += String(days[d.weekday.rawValue - 1].prefix(3))
                case "A": out += days[d.weekday.rawValue - 1]
                case "b": out += String(months[d.month - 1].prefix(3))
                case "B": out += months[d.month - 1]
                case "j":
                    let first = LocalDate(year: d.year, month: 1, day: 1).map(\.daysSinceEpoch) ?? d.daysSinceEpoch
                    out += String(format: "%03d", d.daysSinceEpoch - first + 1)
                case "z":
                    let o = abs(time.utcOffset)
                    out += (time.utcOffset < 0 ? "-" : "+") + two(o / 3600) + two(o / 60 % 60)
                default: break
                }
            }
        }
        return out
    }
}

/// Why a text a preset gives cannot be used (its key is the caller's).
struct PresetTextRefusal: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
