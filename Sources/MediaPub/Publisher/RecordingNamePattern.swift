import Foundation

/// The names one component of a recording's path pattern makes (docs/presets.md,
/// Outputs): literal text as is, each strftime field as exactly the characters and
/// width OutputTarget.expand (glibc's strftime) writes for it: `%Y` four digits, `%m`
/// 0 or 1 then a digit, `%k` a space, 1 or 2 then a digit. A field whose text has no
/// fixed width or is words (`%-H`, `%s`, `%a`) is `unmappable`: retention never
/// guesses at it. A `%` that starts no strftime field (`%N`) is `unknown`.
struct RecordingNamePattern: Sendable, Equatable {
    /// One step of a name: a character of `set` (code point ranges), or any run
    /// (`loop`, maybe empty) of them; a nil set is any character but `/`.
    struct Token: Sendable, Equatable {
        let set: [ClosedRange<UInt32>]?
        let loop: Bool

        func admits(_ c: UInt32) -> Bool {
            guard let set else { return c != 0x2F }
            return set.contains { $0.contains(c) }
        }

        func meets(_ other: Token) -> Bool {
            guard let set else { return other.set.map { $0.contains { $0 != 0x2F...0x2F } } ?? true }
            guard let theirs = other.set else { return other.meets(self) }
            return set.contains { mine in theirs.contains { $0.overlaps(mine) } }
        }
    }

    /// The names it makes, each a sequence of tokens (a file's: plain, and numbered `-N`).
    let alternatives: [[Token]]

    /// A `%` field of a pattern as written (`%-H`), and what it writes.
    struct Field: Equatable {
        let text: String
        /// Exactly what it writes, one token a character; nil when that cannot be told.
        let tokens: [Token]?
        /// How long its text stays the same (seconds); nil for one that never changes.
        let period: TimeInterval?
        /// A field glibc's strftime knows (else it is copied as written).
        let known: Bool
    }

    /// The component `pattern` (no `/`): its fields as what they write; `numbered`: a file's
    /// name, which may have `-N` before its extension (RecordingFile.numbered).
    init(_ pattern: String, numbered: Bool) {
        let ext = (pattern as NSString).pathExtension
        guard numbered, !ext.isEmpty, !ext.contains("%") else {
            let plain = Self.tokens(pattern)
            alternatives = numbered ? [plain, plain + Self.suffix] : [plain]
            return
        }
        let stem = Self.tokens(String(pattern.dropLast(ext.count + 1))), tail = Self.tokens("." + ext)
        alternatives = [stem + tail, stem + Self.suffix + tail]
    }

    /// Literal names (a playlist's) or a mix of literal text and tokens (HLS segments).
    init(alternatives: [[Token]]) { self.alternatives = alternatives }

    /// `-1`, `-2`, … `-999`.
    private static let suffix: [Token] = literal("-") + [Token(set: [49...57], loop: false), Token(set: digit, loop: true)]
    static let digit: [ClosedRange<UInt32>] = [48...57]

    static func literal(_ c: Unicode.Scalar) -> Token { Token(set: [c.value...c.value], loop: false) }
    static func literal(_ text: String) -> [Token] { text.unicodeScalars.map { literal($0) } }
    private static func one(_ chars: String) -> Token { Token(set: chars.unicodeScalars.map { $0.value...$0.value }, loop: false) }

    /// The tokens of a component: an unmappable or unknown field as any text.
    static func tokens(_ pattern: String) -> [Token] {
        var out: [Token] = []
        for part in parts(pattern) {
            switch part {
            case .literal(let c): out.append(literal(c))
            case .field(let field): out += field.tokens ?? [Token(set: nil, loop: true)]
            }
        }
        return out
    }

    /// Whether `name` is one of the names this makes.
    func matches(_ name: String) -> Bool {
        let chars = Array(name.unicodeScalars.map(\.value))
        return alternatives.contains { Self.accepts($0, chars) }
    }

    /// Whether a name could be made by both.
    func overlaps(_ other: RecordingNamePattern) -> Bool {
        alternatives.contains { a in other.alternatives.contains { b in Self.meet(a, b) } }
    }

    /// Runs the tokens over `chars`: the positions reachable after each character.
    private static func accepts(_ tokens: [Token], _ chars: [UInt32]) -> Bool {
        func closure(_ at: Set<Int>) -> Set<Int> {
            var out = at
            for p in at {
                var i = p
                while i < tokens.count, tokens[i].loop { i += 1; out.insert(i) }
            }
            return out
        }
        var positions = closure([0])
        for c in chars {
            var next = Set<Int>()
            for p in positions where p < tokens.count && tokens[p].admits(c) { next.insert(tokens[p].loop ? p : p + 1) }
            positions = closure(next)
            if positions.isEmpty { return false }
        }
        return positions.contains(tokens.count)
    }

    /// Whether some name is made by both token sequences (walking both at once).
    private static func meet(_ a: [Token], _ b: [Token]) -> Bool {
        var seen = Set<[Int]>()
        var todo = [[0, 0]]
        while let s = todo.popLast() {
            guard seen.insert(s).inserted else { continue }
            let (i, j) = (s[0], s[1])
            if i == a.count, j == b.count { return true }
            if i < a.count, a[i].loop { todo.append([i + 1, j]) }
            if j < b.count, b[j].loop { todo.append([i, j + 1]) }
            if i < a.count, j < b.count, a[i].meets(b[j]) {
                todo.append([a[i].loop ? i : i + 1, b[j].loop ? j : j + 1])
            }
        }
        return false
    }

    enum Part: Equatable {
        case literal(Unicode.Scalar)
        case field(Field)
    }

    /// The pattern taken apart: its literal characters and its `%` fields (flags
    /// `_-0^#`, a width and an `E`/`O` modifier included).
    static func parts(_ pattern: String) -> [Part] {
        var out: [Part] = []
        let chars = Array(pattern.unicodeScalars)
        var i = 0
        while i < chars.count {
            guard chars[i] == "%" else {
                out.append(.literal(chars[i]))
                i += 1
                continue
            }
            var j = i + 1
            while j < chars.count, "_-0^#".unicodeScalars.contains(chars[j]) { j += 1 }
            while j < chars.count, ("0"..."9").contains(chars[j]) { j += 1 }
            while j < chars.count, chars[j] == "E" || chars[j] == "O" { j += 1 }
            let end = min(j + 1, chars.count)
            var text = ""
            text.unicodeScalars.append(contentsOf: chars[i..<end])
            let plain = j == i + 1
            let conversion = j < chars.count ? Character(chars[j]) : nil
            out.append(.field(field(text, conversion, plain: plain)))
            i = end
        }
        return out
    }

    private static let day: TimeInterval = 86400, month: TimeInterval = 31 * 86400, year: TimeInterval = 366 * 86400

    /// What a field writes: exact for the fixed-width digit fields written plainly.
    private static func field(_ text: String, _ conversion: Character?, plain: Bool) -> Field {
        let d = "0123456789"
        let exact: [Character: ([String], TimeInterval?)] = [
            "Y": ([d, d, d, d], year), "G": ([d, d, d, d], year), "C": ([d, d], 100 * year), "y": ([d, d], year),
            "g": ([d, d], year), "m": (["01", d], month), "d": (["0123", d], day), "e": ([" 123", d], day),
            "j": (["0123", d, d], day), "H": (["012", d], 3600), "k": ([" 12", d], 3600), "I": (["01", d], 3600),
            "l": ([" 1", d], 3600), "M": (["012345", d], 60), "S": (["0123456", d], 1), "U": (["012345", d], 7 * day),
            "W": (["012345", d], 7 * day), "V": (["012345", d], 7 * day), "u": (["1234567"], day), "w": (["0123456"], day),
            "F": ([d, d, d, d, "-", "01", d, "-", "0123", d], day), "T": (["012", d, ":", "012345", d, ":", "0123456", d], 1),
            "R": (["012", d, ":", "012345", d], 60), "z": (["+-", d, d, d, d], nil), "n": (["\n"], nil), "t": (["\t"], nil),
            "%": (["%"], nil),
        ]
        // Known to strftime, but of varying width, words of the locale, or a `/`.
        let inexact: [Character: TimeInterval?] = [
            "s": 1, "c": 1, "X": 1, "r": 1, "x": day, "D": day, "a": day, "A": day, "b": month, "B": month, "h": month,
            "p": day / 2, "P": day / 2, "Z": nil,
        ]
        guard let conversion else { return Field(text: text, tokens: nil, period: nil, known: false) }
        if let (chars, period) = exact[conversion] {
            return Field(text: text, tokens: plain ? chars.map(one) : nil, period: period, known: true)
        }
        if let period = inexact[conversion] { return Field(text: text, tokens: nil, period: period, known: true) }
        return Field(text: text, tokens: nil, period: nil, known: false)
    }

    /// The fields of a whole path pattern, folders included.
    static func fields(_ path: String) -> [Field] {
        parts(path).compactMap { if case .field(let f) = $0 { return f } else { return nil } }
    }
}

extension OutputTarget {
    /// The paths an output writes, each a pattern per path component: a file's path
    /// pattern (numbered names too); an HLS playlist, and its segments beside it
    /// (`index-20261202-101010-00001.ts`, muxAndSink).
    var writtenPaths: [[RecordingNamePattern]] {
        func components(_ path: String) -> [String] {
            path.split(separator: "/").map(String.init).filter { $0 != "." }
        }
        func literal(_ part: String) -> RecordingNamePattern { RecordingNamePattern(alternatives: [RecordingNamePattern.literal(part)]) }
        switch self {
        case .file(let path, _):
            let parts = components(path)
            return [parts.indices.map { RecordingNamePattern(parts[$0], numbered: $0 == parts.count - 1) }]
        case .hls(let hls):
            let parts = components(hls.playlist)
            let folder = parts.dropLast().map(literal)
            let stem = ((hls.playlist as NSString).lastPathComponent as NSString).deletingPathExtension
            let number = Array(repeating: RecordingNamePattern.Token(set: RecordingNamePattern.digit, loop: false), count: 5)
                + [RecordingNamePattern.Token(set: RecordingNamePattern.digit, loop: true)]
            let segment = RecordingNamePattern.literal(stem + "-") + RecordingNamePattern.tokens(Self.hlsRunStamp)
                + RecordingNamePattern.literal("-") + number + RecordingNamePattern.literal(".ts")
            return [folder + [literal(parts.last ?? "")], folder + [RecordingNamePattern(alternatives: [segment])]]
        default:
            return []
        }
    }

    /// Whether two outputs could write a file of the same name (or one's `keep` take the other's files).
    func mayWriteSameNames(as other: OutputTarget) -> Bool {
        writtenPaths.contains { mine in
            other.writtenPaths.contains { theirs in
                mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.overlaps($1) }
            }
        }
    }
}
