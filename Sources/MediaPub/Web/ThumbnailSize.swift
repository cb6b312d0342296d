/// The size of a thumbnail asked for with `?width=` (docs/http.md): 320 pixels wide unless
/// asked otherwise, never wider than the output, the height in the output's proportions.
/// Both are even (the JPEG is made from 4:2:0 pictures). Only a few widths are made
/// (`steps`): a width asked is taken to the nearest, so however many widths clients ask, the
/// JPEGs made fit the cache (`ThumbnailCache.capacity`) and each is made once a second at most.
struct ThumbnailSize: Equatable, Sendable {
    let width: Int
    let height: Int

    static let defaultWidth = 320
    static let minimumWidth = 16

    /// The widths made, for an output `outputWidth` wide: 160, 320, 640 (those narrower than
    /// the output) and the output's own.
    static func steps(outputWidth: Int) -> [Int] {
        [160, 320, 640].filter { $0 < outputWidth } + [outputWidth]
    }

    /// `query`: the request's query string (`width=640`), nil without one. A width that is
    /// not a whole number from 16 to the output's width is an error naming it.
    static func asked(_ query: String?, output: (width: Int, height: Int)) -> Result<ThumbnailSize, ThumbnailSizeError> {
        var width = min(defaultWidth, output.width)
        for pair in (query ?? "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.first == "width" else { continue }
            let text = kv.count > 1 ? String(kv[1]) : ""
            guard let asked = Int(text), asked >= minimumWidth, asked <= output.width else {
                return .failure(ThumbnailSizeError(message: "width: expected a whole number from \(minimumWidth) to \(output.width), got \(text.prefix(20).debugDescription)"))
            }
            // The nearest step (the wider of two as near).
            width = steps(outputWidth: output.width).min { abs($0 - asked) < abs($1 - asked)
                || (abs($0 - asked) == abs($1 - asked) && $0 > $1) } ?? asked
        }
        width &= ~1
        let height = max(2, Int((Double(width) * Double(output.height) / Double(output.width)).rounded()) & ~1)
        return .success(ThumbnailSize(width: width, height: height))
    }
}

struct ThumbnailSizeError: Error, Equatable, Sendable {
    let message: String
}
