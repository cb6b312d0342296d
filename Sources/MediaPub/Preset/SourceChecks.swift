import Foundation

/// A local file or folder a preset names that is not there (or not of its kind).
struct LocalFileProblem: Error, Equatable {
    var message: String
}

/// What `mediapub validate` checks beyond what a run needs to start
/// (docs/presets.md, "Checking a preset"): a `source:` that is a local file must
/// be there; a playlist's missing local items are warnings, one line each, and
/// an error when none is there. A run starts all the same and names a missing
/// source when its turn comes.
extension PresetDecoder {
    /// A missing local `source:`: a problem at its line.
    mutating func checkSource(_ resolved: String, _ node: YAMLNode, _ key: String) {
        guard checksSources, let why = missingLocalFile(resolved) else { return }
        report(node, key, why)
    }

    /// `items`, unchanged; each missing local one is a warning at its line, or a
    /// problem when none of them is there. `list` names the M3U file they came from.
    mutating func checkItems(_ items: [String], nodes: [YAMLNode], _ key: String, listedIn list: String? = nil) -> [String] {
        guard checksSources else { return items }
        let missing = items.indices.compactMap { i in missingLocalFile(items[i]).map { (i, $0) } }
        let none = missing.count == items.count
        for (i, why) in missing {
            let itemKey = list == nil ? "\(key)[\(i)]" : key
            let message = why + (list.map { " (entry \(i + 1) of \($0))" } ?? "")
            if none {
                report(nodes[i], itemKey, message + (items.count > 1 ? "; none of the playlist's \(items.count) items is there" : ""))
            } else {
                warn(nodes[i], itemKey, message + "; it is skipped when its turn comes")
            }
        }
        return items
    }

    /// Why a local source is not a file that is there; nil for one that is, and for URLs.
    private func missingLocalFile(_ resolved: String) -> String? {
        guard PathResolution.localPath(of: resolved) != nil,
              case .failure(let why) = localFileCheck(resolved, want: .file) else { return nil }
        return why.message
    }
}
