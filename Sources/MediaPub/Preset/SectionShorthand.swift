import Foundation

/// A section written in its short form (docs/presets.md): `monitor: true` is
/// `monitor: {local: true}`, and `playlist: [a, b]` (a player's, a block's, the
/// filler's) is `playlist: {items: [a, b]}`. `--set` reaching into such a section
/// opens the short form into its mapping first, so what it said is kept.
enum SectionShorthand {
    /// The mapping `node` stands for when it is the short form of a section with
    /// `schema`'s keys; nil when it is a mapping already, nothing, or no short form.
    static func expanded(_ node: YAMLNode, schema: PresetSchema) -> YAMLNode? {
        guard node.pairs == nil, !node.isNull else { return nil }
        let key: String
        switch node.content {
        case .scalar where schema.child("local") != nil: key = "local"
        case .sequence where schema.child("items") != nil: key = "items"
        default: return nil
        }
        let pair = YAMLPair(key: .scalar(key, line: node.line, origin: node.origin), value: node)
        return .mapping([pair], line: node.line, origin: node.origin)
    }
}
