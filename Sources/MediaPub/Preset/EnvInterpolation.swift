import Foundation

/// `${VAR}` and `${VAR:-default}` in preset values, replaced from the
/// environment; `$$` is a literal `$`. `${VAR:-default}` uses the default when
/// VAR is unset or empty (as in sh). Any other `$` is kept as written.
public enum EnvInterpolation {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unset(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .unset(let name): return "\(name) is not set"
            case .malformed(let why): return why
            }
        }
    }

    /// The most one value may grow to once its references are replaced, and the most
    /// a whole preset's values may grow by: a small file repeating a large variable
    /// must not become gigabytes in memory.
    public static let maxValueBytes = 64 * 1024
    public static let maxTotalGrowth = 4 * 1024 * 1024

    /// What is left of a preset's growth budget (`maxTotalGrowth`), shared by its values.
    public final class Budget {
        public var left: Int
        public init(_ bytes: Int = EnvInterpolation.maxTotalGrowth) { left = bytes }
    }

    /// The text with every reference replaced, or the failures found (each
    /// unset variable once, in order). Never includes variable values in failures.
    public static func expand(_ text: String, environment: [String: String],
                              budget: Budget = Budget()) -> Result<String, InterpolationErrors> {
        guard text.contains("$") else { return .success(text) }
        let limit = min(maxValueBytes, text.utf8.count + max(0, budget.left))
        var size = 0
        var out = ""
        var failures: [Failure] = []
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            guard c == "$" else {
                out.append(c)
                i = text.index(after: i)
                continue
            }
            let next = text.index(after: i)
            if next < text.endIndex, text[next] == "$" {
                out.append("$")
                i = text.index(after: next)
                continue
            }
            guard next < text.endIndex, text[next] == "{" else {
                out.append("$")
                i = next
                continue
            }
            let bodyStart = text.index(after: next)
            guard let close = text[bodyStart...].firstIndex(of: "}") else {
                failures.append(.malformed("unterminated ${ (write $$ for a literal $)"))
                break
            }
            let body = text[bodyStart..<close]
            let name: Substring
            var fallback: Substring?
            if let sep = body.range(of: ":-") {
                name = body[..<sep.lowerBound]
                fallback = body[sep.upperBound...]
            } else {
                name = body
            }
            if !isVariableName(name) {
                failures.append(.malformed("${\(name)} is not a variable name (write $$ for a literal $)"))
            } else if let value = environment[String(name)], !(value.isEmpty && fallback != nil) {
                size += value.utf8.count
                if size > limit { return .failure(InterpolationErrors(failures: [tooLarge(limit)])) }
                out += value
            } else if let fallback {
                out += fallback
            } else if !failures.contains(.unset(String(name))) {
                failures.append(.unset(String(name)))
            }
            i = text.index(after: close)
        }
        guard failures.isEmpty else { return .failure(InterpolationErrors(failures: failures)) }
        budget.left -= max(0, out.utf8.count - text.utf8.count)
        return .success(out)
    }

    private static func tooLarge(_ limit: Int) -> Failure {
        limit >= maxValueBytes
            ? .malformed("grows past \(maxValueBytes / 1024) KiB once its variables are replaced")
            : .malformed("the preset grows past \(maxTotalGrowth / 1024 / 1024) MiB once its variables are replaced")
    }

    public struct InterpolationErrors: Error, Equatable {
        public var failures: [Failure]
    }

    static func isVariableName<S: StringProtocol>(_ s: S) -> Bool {
        guard let first = s.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return s.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }

    /// A `$`-safe form of a resolved value: every `$` doubled, so that reading
    /// it back through `expand` gives the value again.
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "$", with: "$$")
    }
}

extension YAMLNode {
    /// Expands `${...}` in every scalar value (not in keys). `report` gets the
    /// scalar's node, its key path and a message for each failure.
    func interpolated(environment: [String: String], path: String, budget: EnvInterpolation.Budget = .init(),
                      report: (YAMLNode, String, String) -> Void) -> YAMLNode {
        var copy = self
        switch content {
        case .scalar(let s):
            switch EnvInterpolation.expand(s, environment: environment, budget: budget) {
            case .success(let value):
                if value != s {
                    copy.content = .scalar(value)
                    copy.raw = s
                }
            case .failure(let errors):
                for f in errors.failures { report(self, path, f.description) }
            }
        case .sequence(let items):
            copy.content = .sequence(items.enumerated().map { i, item in
                item.interpolated(environment: environment, path: "\(path)[\(i)]", budget: budget, report: report)
            })
        case .mapping(let pairs):
            copy.content = .mapping(pairs.map { pair in
                let key = pair.key.scalarValue ?? "?"
                let childPath = path.isEmpty ? key : "\(path).\(key)"
                return YAMLPair(key: pair.key,
                                value: pair.value.interpolated(environment: environment, path: childPath, budget: budget, report: report))
            })
        }
        return copy
    }
}
