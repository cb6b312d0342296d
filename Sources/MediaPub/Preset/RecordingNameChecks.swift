import Foundation

/// What the preset checks of the names outputs write (docs/presets.md, Outputs): that
/// `keep` and `max_age` can tell an output's files exactly, that `segment` gives every
/// file a name of its own, and that no two outputs write the same names.
extension PresetDecoder {
    /// `keep`/`max_age`: every field of the file's pattern must be one whose text is
    /// known exactly (RecordingNamePattern), or retention would take others' files or miss its own.
    mutating func checkRetainable(_ node: YAMLNode, _ key: String, _ output: OutputConfig) {
        guard case .file(let path, _) = output.url.target else { return }
        guard let field = RecordingNamePattern.fields(path).first(where: { $0.known && $0.tokens == nil }) else { return }
        let name = key.split(separator: ".").last.map(String.init) ?? key
        report(node, key, "\(name) cannot tell this output's files by \(field.text) in \(path.clipped()): it writes no fixed "
            + "width of digits (use fields such as %Y %m %d %H %M %S, or leave out \(name))")
    }

    /// `segment`: a pattern whose finest field lasts longer than a segment names
    /// several files alike; refused, naming the field it needs.
    mutating func checkSegmentNames(_ node: YAMLNode, _ key: String, _ output: OutputConfig) {
        guard case .file(let path, let container) = output.url.target, let segment = output.segment else { return }
        if OutputTarget.unsegmentableContainers.contains(container) {   // OutputTarget+Audio.swift
            return report(node, key, ".\(container) files are not cut into segments: use .m4a for sound only")
        }
        // splitmuxsink cannot make flvmux's pads again for a second file (GStreamer 1.22: the
        // file after the first stays empty): refused rather than lost.
        if container == "flv" {
            return report(node, key, ".flv files are not cut into segments: use .mkv, .ts or .mp4")
        }
        let finest = RecordingNamePattern.fields(path).compactMap(\.period).min()
        if let finest, finest <= segment { return }
        let needs: [(TimeInterval, String)] = [(60, "%S"), (3600, "%M"), (86400, "%H"), (31 * 86400, "%d"), (366 * 86400, "%m")]
        let field = needs.first { segment < $0.0 }?.1 ?? "%Y"
        report(node, key, "\(path.clipped()) would give files \(MediaTime.formatDuration(segment)) apart the same name: "
            + "it needs \(field) (or a finer field)")
    }

    /// No two outputs may write the same names, nor one's `keep` take the other's files:
    /// reported at the later output's url, naming both.
    mutating func checkNamesApart(_ outputs: [OutputConfig], _ items: [YAMLNode]) {
        for j in outputs.indices {
            guard let i = outputs.indices.first(where: { $0 < j && outputs[$0].url.target.mayWriteSameNames(as: outputs[j].url.target) })
            else { continue }
            let item = items[j]
            let node = item.pairs?.first { $0.key.scalarValue == "url" }?.value ?? item
            report(node, "outputs[\(j)].url", "\(SecretMask.mask(url: outputs[j].url.text).clipped()) and outputs[\(i)] "
                + "(\(SecretMask.mask(url: outputs[i].url.text).clipped())) would write files of the same names: give each its own")
        }
    }
}
