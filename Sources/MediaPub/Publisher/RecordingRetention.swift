import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `keep: N` and `max_age:` of a file output cut into segments: which of the
/// output's files go. Only files this output's name pattern makes (its strftime
/// fields as digits or words, and the `-N` a taken name gets, RecordingFile.numbered)
/// in the folder of the file being written are ever considered; only regular files
/// (never a folder or a link), never the file being written.
struct RecordingRetention: Sendable {
    let keep: Int?
    let maxAge: TimeInterval?

    /// One file in the folder: its name and when it was last written.
    struct Candidate: Equatable {
        let name: String
        let modified: Date
    }

    /// Whether `name` is one the file name pattern `pattern` (no folder) makes.
    static func matches(_ name: String, pattern: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: expression(for: pattern)) else { return false }
        return regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    /// The pattern as an anchored regular expression: literal text as is, each
    /// strftime field as what it expands to, an optional `-N` before the extension.
    static func expression(for pattern: String) -> String {
        let ext = (pattern as NSString).pathExtension
        let stem = ext.isEmpty || ext.contains("%") ? pattern : String(pattern.dropLast(ext.count + 1))
        let tail = ext.isEmpty || ext.contains("%") ? "" : NSRegularExpression.escapedPattern(for: "." + ext)
        return "^" + fields(stem) + "(-[0-9]+)?" + tail + "$"
    }

    private static func fields(_ pattern: String) -> String {
        let digits: [Character: String] = [
            "Y": "[0-9]{4}", "G": "[0-9]{4}", "C": "[0-9]{2}", "y": "[0-9]{2}", "g": "[0-9]{2}", "m": "[0-9]{2}",
            "d": "[0-9]{2}", "e": "[ 0-9][0-9]", "H": "[0-9]{2}", "I": "[0-9]{2}", "M": "[0-9]{2}", "S": "[0-9]{2}",
            "j": "[0-9]{3}", "U": "[0-9]{2}", "W": "[0-9]{2}", "V": "[0-9]{2}", "u": "[0-9]", "w": "[0-9]",
            "s": "[0-9]+", "F": "[0-9]{4}-[0-9]{2}-[0-9]{2}", "T": "[0-9]{2}:[0-9]{2}:[0-9]{2}",
            "R": "[0-9]{2}:[0-9]{2}", "z": "[-+][0-9]{4}", "%": "%",
        ]
        var out = ""
        var chars = pattern.makeIterator()
        while let c = chars.next() {
            guard c == "%" else {
                out += NSRegularExpression.escapedPattern(for: String(c))
                continue
            }
            guard let field = chars.next() else { out += "%"; break }
            // Names of days and months, AM/PM, time zones; anything else: some text.
            out += digits[field] ?? ("aAbBhpZ".contains(field) ? "[A-Za-z]+" : ".+?")
        }
        return out
    }

    /// The names to remove: older than `maxAge`, and beyond the newest `keep`. Files
    /// of this run (`thisRun`, in the order they were made) are newer than every
    /// earlier one; earlier ones are ordered by when they were last written. The
    /// file being written (`current`) is never among them.
    func victims(_ candidates: [Candidate], thisRun: [String], current: String?, now: Date) -> [String] {
        let earlier = candidates.filter { !thisRun.contains($0.name) }.sorted { $0.modified < $1.modified }
        let ours = thisRun.compactMap { name in candidates.first { $0.name == name } }
        let ordered = earlier + ours
        var gone: [String] = []
        if let maxAge {
            gone += ordered.filter { now.timeIntervalSince($0.modified) > maxAge }.map(\.name)
        }
        if let keep, ordered.count > keep {
            gone += ordered.prefix(ordered.count - keep).map(\.name).filter { !gone.contains($0) }
        }
        return gone.filter { $0 != current }
    }

    /// Removes what `victims` names in `folder` among the regular files matching
    /// `pattern`; returns what could not be removed, with why.
    func apply(folder: String, pattern: String, thisRun: [String], current: String?,
               now: Date = Date()) -> [(path: String, why: String)] {
        guard let regex = try? NSRegularExpression(pattern: Self.expression(for: pattern)),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [] }
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        let candidates = names.compactMap { name -> Candidate? in
            guard regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil,
                  let info = Self.regularFile(path(name)) else { return nil }
            return Candidate(name: name, modified: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec)
                                                        + Double(info.st_mtim.tv_nsec) / 1e9))
        }
        let ownNames = thisRun.map { ($0 as NSString).lastPathComponent }
        let currentName = current.map { ($0 as NSString).lastPathComponent }
        var failures: [(path: String, why: String)] = []
        for name in victims(candidates, thisRun: ownNames, current: currentName, now: now) {
            // Checked again just before: still a regular file (not a link or folder put there since).
            guard Self.regularFile(path(name)) != nil else { continue }
            if unlink(path(name)) != 0 {
                let code = errno
                if code != ENOENT { failures.append((path(name), String(cString: strerror(code)))) }
            }
        }
        return failures
    }

    /// The file's status when `path` names a regular file itself (not through a link).
    private static func regularFile(_ path: String) -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return info
    }
}
