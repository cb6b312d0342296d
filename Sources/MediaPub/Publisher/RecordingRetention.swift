import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `keep: N` and `max_age:` of a file output cut into segments: which of the
/// output's files go. Only files this output's path pattern makes (its strftime
/// fields as exactly what they write, RecordingNamePattern; in folders too, and the
/// `-N` a taken name gets, RecordingFile.numbered) are ever considered; only regular
/// files in real folders (never a link), never a file being written, by this run or
/// any other process (RecordingLock, FileWriters), nor one that another writer changed
/// within the last `segment` and `quietMargin` (`settled`). A folder of the pattern
/// that this leaves empty goes too.
struct RecordingRetention: Sendable {
    let keep: Int?
    let maxAge: TimeInterval?
    /// The output's `segment`: a file this run did not make, changed more recently than a
    /// segment and `quietMargin` ago, may still be written (a writer that opens it by turns).
    var segment: TimeInterval? = nil

    /// Beyond a segment, how long a file another writer changed is left alone.
    static let quietMargin: TimeInterval = 60

    /// Whether a file this run did not make was last changed long enough ago to be one
    /// that nobody writes any more (a time in the future is no recent change).
    func settled(_ file: Candidate, now: Date) -> Bool {
        let age = now.timeIntervalSince(file.modified)
        return age < 0 || age >= (segment ?? 0) + Self.quietMargin
    }

    /// One file in the folder: its name and when it was last written.
    struct Candidate: Equatable {
        let name: String
        let modified: Date
    }

    /// Whether `name` is one the file name pattern `pattern` (no folder) makes.
    static func matches(_ name: String, pattern: String) -> Bool {
        RecordingNamePattern(pattern, numbered: true).matches(name)
    }

    /// The names to remove: older than `maxAge`, and beyond the newest `keep`. Files
    /// of this run (`thisRun`, in the order they were made) are newer than every
    /// earlier one; earlier ones are ordered by when they were last written. The
    /// file being written (`current`) is never among them.
    /// A name this run made twice (retention removed its first file, and a later file took
    /// the freed name) counts where it was made last.
    func victims(_ candidates: [Candidate], thisRun: [String], current: String?, now: Date) -> [String] {
        let earlier = candidates.filter { !thisRun.contains($0.name) }.sorted { $0.modified < $1.modified }
        var seen = Set<String>()
        let lastMade = thisRun.reversed().filter { seen.insert($0).inserted }.reversed()
        let ours = lastMade.compactMap { name in candidates.first { $0.name == name } }
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

    /// The fixed folder a path pattern starts in (up to its first component with a
    /// strftime field) and the components after it, the last one the file's name:
    /// `/rec/%Y-%m-%d/cam-%H.mp4` is `/rec` and `[%Y-%m-%d, cam-%H.mp4]`.
    static func split(_ pattern: String) -> (base: String, components: [String]) {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = parts.last else { return (pattern, []) }
        let fixed = parts.dropLast().firstIndex { $0.contains("%") } ?? (parts.count - 1)
        let root = pattern.hasPrefix("/") ? "/" : ""
        let base = root + parts[..<fixed].joined(separator: "/")
        return (base.isEmpty ? "." : base, Array(parts[fixed...].dropLast()) + [name])
    }

    /// The output's files: regular files whose path below `base` each component of the
    /// pattern makes, through real folders only (never a link); paths relative to `base`.
    static func candidates(base: String, components: [String]) -> [Candidate] {
        let names = components.indices.map { RecordingNamePattern(components[$0], numbered: $0 == components.count - 1) }
        guard !names.isEmpty else { return [] }
        var found: [Candidate] = []
        func walk(_ relative: String, level: Int) {
            let folder = relative.isEmpty ? base : (base as NSString).appendingPathComponent(relative)
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
            for name in entries where names[level].matches(name) {
                let path = relative.isEmpty ? name : (relative as NSString).appendingPathComponent(name)
                let full = (base as NSString).appendingPathComponent(path)
                if level == names.count - 1 {
                    guard let info = regularFile(full) else { continue }
                    found.append(Candidate(name: path, modified: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec)
                                                                      + Double(info.st_mtim.tv_nsec) / 1e9)))
                } else if isFolder(full) {
                    walk(path, level: level + 1)
                }
            }
        }
        walk("", level: 0)
        return found
    }

    /// Removes what `victims` names among the files the path pattern `pattern` makes
    /// (strftime fields in its folders too: `/rec/%Y-%m-%d/cam-%H.mp4`), then the
    /// pattern's folders that this left empty; returns what could not be removed, with why.
    /// Whether a file is written is asked of `writers`, one for the whole prune (/proc is read
    /// at most once, WriterCheck).
    func apply(pattern: String, thisRun: [String], current: String?, now: Date = Date(),
               writers: WriterCheck = WriterCheck()) -> [(path: String, why: String)] {
        let (base, components) = Self.split(pattern)
        let candidates = Self.candidates(base: base, components: components)
        func relative(_ path: String) -> String {
            let prefix = base.hasSuffix("/") ? base : base + "/"
            return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        }
        func full(_ name: String) -> String { (base as NSString).appendingPathComponent(name) }
        // A file another process is writing, or changed lately, is not one of the files kept:
        // left out, never removed.
        let ours = Set(thisRun.map(relative))
        let finished = candidates.filter {
            ours.contains($0.name) || (settled($0, now: now) && !RecordingLock.isWritten(full($0.name), writers: writers))
        }
        var failures: [(path: String, why: String)] = []
        for name in victims(finished, thisRun: thisRun.map(relative), current: current.map(relative), now: now) {
            // Removed only while it is still a regular file that nobody writes (RecordingLock).
            switch RecordingLock.remove(full(name), writers: writers) {
            case .removed: break
            case .held, .gone: continue
            case .failed(let why):
                failures.append((full(name), why))
                continue
            }
            // Its folders of the pattern (a day's folder), once empty: rmdir removes only an empty one.
            var folder = (name as NSString).deletingLastPathComponent
            while !folder.isEmpty, rmdir(full(folder)) == 0 {
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        return failures
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The file's status when `path` names a regular file itself (not through a link).
    private static func regularFile(_ path: String) -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return info
    }
}
