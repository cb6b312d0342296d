import Foundation

/// The scalar values of a preset – text, true/false, numbers, durations,
/// bitrates – read and range-checked with the messages problems show.
extension PresetDecoder {
    /// The scalar's text for messages; values that came from the environment
    /// are shown as written (`${VAR}`) so secrets stay out of messages; a long
    /// one is cut to 80 characters.
    func text(_ node: YAMLNode) -> String {
        let s = node.raw ?? node.scalarValue ?? ""
        return s.trimmingCharacters(in: .whitespaces).clipped()
    }

    /// The scalar's text, trimmed; nil and a problem for a list, a mapping or nothing.
    mutating func scalar(_ node: YAMLNode, _ key: String, expected: String) -> String? {
        string(node, key, expected: expected)?.trimmingCharacters(in: .whitespaces)
    }

    /// The scalar's text as written; nil and a problem for a list, a mapping or nothing.
    mutating func string(_ node: YAMLNode, _ key: String, expected: String = "text") -> String? {
        guard let s = node.scalarValue else {
            report(node, key, "expected \(expected), got \(node.kindName)")
            return nil
        }
        if node.isNull {
            report(node, key, "expected \(expected), got nothing")
            return nil
        }
        return s
    }

    mutating func bool(_ node: YAMLNode, _ key: String) -> Bool? {
        guard let s = scalar(node, key, expected: "true or false") else { return nil }
        switch s.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            report(node, key, "\"\(text(node))\" is not true or false")
            return nil
        }
    }

    mutating func int(_ node: YAMLNode, _ key: String, range: ClosedRange<Int>? = nil, percent: Bool = false) -> Int? {
        guard var s = scalar(node, key, expected: "a whole number") else { return nil }
        if percent, s.hasSuffix("%") { s = String(s.dropLast()).trimmingCharacters(in: .whitespaces) }
        return checked(node, key, Int(s), notA: "a whole number", range, Self.span(range) { "\($0)" })
    }

    mutating func double(_ node: YAMLNode, _ key: String, range: ClosedRange<Double>) -> Double? {
        guard let s = scalar(node, key, expected: "a number") else { return nil }
        let body = s.hasPrefix("-") || s.hasPrefix("+") ? String(s.dropFirst()) : s
        return checked(node, key, MediaTime.plainNumber(body) == nil ? nil : Double(s), notA: "a number", range, Self.span(range))
    }

    mutating func duration(_ node: YAMLNode, _ key: String, range: ClosedRange<TimeInterval>? = nil,
                           also: String = "") -> TimeInterval? {
        guard let s = scalar(node, key, expected: "a duration") else { return nil }
        switch MediaTime.duration(s) {
        case .success(let d):
            return checked(node, key, d, notA: "", range, Self.span(range, MediaTime.formatDuration))
        case .failure(.tooLong):
            report(node, key, "\(text(node)) is too long (at most \(MediaTime.maxDurationText))")
        case .failure:
            let extra = also.isEmpty ? "" : " \(also)"
            report(node, key, "\"\(text(node))\" is not a duration (like 500ms, 2s, 10m, 1h30m, 01:30:00\(extra))")
        }
        return nil
    }

    mutating func bitrate(_ node: YAMLNode, _ key: String, range: ClosedRange<Int>) -> Int? {
        guard let s = scalar(node, key, expected: "a bitrate") else { return nil }
        return checked(node, key, MediaTime.parseBitrate(s), notA: "a bitrate (like 128k, 2.5M or bits per second)",
                       range, Self.span(range, MediaTime.formatBitrate))
    }

    /// `v`, or nil and a problem: not a value (`notA`), or outside `range` (shown as `shown`).
    private mutating func checked<V: Comparable>(_ node: YAMLNode, _ key: String, _ v: V?, notA: String,
                                                 _ range: ClosedRange<V>?, _ shown: String) -> V? {
        guard let v else {
            report(node, key, "\"\(text(node))\" is not \(notA)")
            return nil
        }
        if let range, !range.contains(v) {
            report(node, key, "\(text(node)) is out of range \(shown)")
            return nil
        }
        return v
    }

    /// A range as problems and the reference show it: `lo..hi`, each bound by `show`.
    static func span<V>(_ range: ClosedRange<V>?, _ show: (V) -> String) -> String {
        range.map { "\(show($0.lowerBound))..\(show($0.upperBound))" } ?? ""
    }

    func isName(_ s: String, extra: String) -> Bool {
        !s.isEmpty && s.allSatisfy { c in
            (c.isASCII && (c.isLetter || c.isNumber)) || c == "_" || c == "-" || extra.contains(c)
        }
    }

    func ordinal(_ n: Int) -> String {
        switch n {
        case 1: return "1st"
        case 2: return "2nd"
        case 3: return "3rd"
        default: return "\(n)th"
        }
    }

    /// 0.5..4.0 (fractional bounds as decimals), -12..12 (whole bounds as integers).
    static func span(_ range: ClosedRange<Double>) -> String {
        let whole = range.lowerBound == range.lowerBound.rounded()
        return whole ? span(range) { "\(Int($0))" } : span(range) { "\($0)" }
    }
}
