import CFontconfig

/// The fonts fontconfig knows, which Pango (textoverlay) draws with: an overlay's
/// font families are checked against them (docs/presets.md, overlays).
enum InstalledFonts {
    /// Whether a font of `family` is installed; nil when fontconfig cannot be asked.
    static func has(family: String) -> Bool? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        guard let objects = FcObjectSetCreate() else { return nil }
        defer { FcObjectSetDestroy(objects) }
        let added = family.withCString { name in
            name.withMemoryRebound(to: FcChar8.self, capacity: family.utf8.count + 1) { FcPatternAddString(pattern, FC_FAMILY, $0) }
        }
        guard added != 0, FcObjectSetAdd(objects, FC_FAMILY) != 0 else { return nil }
        guard let fonts = FcFontList(nil, pattern, objects) else { return nil }
        defer { FcFontSetDestroy(fonts) }
        return fonts.pointee.nfont > 0
    }
}
