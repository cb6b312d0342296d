import Foundation

/// An overlay's font, a Pango font description ("Sans Bold 24"): its families are
/// checked against the fonts installed, since Pango itself silently draws an unknown
/// family in another (docs/presets.md, overlays).
enum OverlayFont {
    /// The families fontconfig always resolves to some installed font.
    static let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "cursive", "fantasy",
                                       "system-ui", "emoji", "math"]

    /// The words of a description that are no family: Pango's styles, variants, weights and stretches.
    static let styleWords: Set<String> = [
        "normal", "roman", "oblique", "italic", "small-caps", "all-small-caps", "petite-caps", "all-petite-caps",
        "unicase", "title-caps", "thin", "ultra-light", "extra-light", "light", "semi-light", "demi-light", "book",
        "regular", "medium", "semi-bold", "demi-bold", "bold", "ultra-bold", "extra-bold", "heavy", "black",
        "ultra-black", "extra-black", "ultra-condensed", "extra-condensed", "condensed", "semi-condensed",
        "semi-expanded", "expanded", "extra-expanded", "ultra-expanded", "not-rotated", "south", "upside-down",
        "north", "rotated-left", "east", "rotated-right", "west",
    ]

    /// The families named, and the size (points, or pixels with `px`); nil when no size is given.
    static func parse(_ description: String) -> (families: [String], size: Double?) {
        var words = description.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var size: Double?
        if let last = words.last {
            let number = last.lowercased().hasSuffix("px") ? String(last.dropLast(2)) : last
            if let v = Double(number), v.isFinite { size = v; words.removeLast() }
        }
        while let last = words.last, styleWords.contains(last.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ","))) {
            words.removeLast()
        }
        let families = words.joined(separator: " ").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return (families, size)
    }

    /// Why `description` cannot be drawn as written; nil when it can.
    static func refusal(of description: String) -> String? {
        let (families, size) = parse(description)
        if let size, size <= 0 || size > 1000 { return "\"\(description.clipped())\": a size of 1 to 1000" }
        guard !families.isEmpty else { return "\"\(description.clipped())\" names no font family (\"Sans Bold 24\")" }
        for family in families where !generic.contains(family.lowercased()) {
            if InstalledFonts.has(family: family) == false {
                return "no font \"\(family.clipped())\" is installed (fc-list lists them; Sans, Serif and Monospace always are)"
            }
        }
        return nil
    }
}
