import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file a recording writes: created by this run, never an earlier file.
/// Whatever already stands at the wanted path (an earlier recording, a folder,
/// a link) is left untouched and the recording goes beside it under a new
/// name (`rec.mp4` → `rec-1.mp4`). Only the file created here is ever removed,
/// and only while it is still that regular file. The file is locked while it is
/// written (RecordingLock): retention, this run's or another's, leaves it alone.
struct RecordingFile: Sendable {
    /// The path asked for (strftime patterns expanded).
    let requested: String
    /// The path written.
    let path: String
    private let device: UInt64
    private let inode: UInt64
    /// Held while the file is written (released when it is finished).
    let lock: RecordingLock

    /// How many numbered names are tried beside a taken one.
    static let maxSuffix = 999

    var renamed: Bool { path != requested }

    /// Creates an empty file at `requested`, or at the first free numbered name
    /// beside it. Fails with the same words filesink uses when the folder is
    /// missing or not writable.
    static func create(_ requested: String) throws -> RecordingFile {
        // Missing folders are made (and kept: only files are ever removed).
        let folder = (requested as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        var n = 0, tries = 0
        while n <= maxSuffix {
            let candidate = n == 0 ? requested : numbered(requested, n)
            // O_EXCL|O_NOFOLLOW: never opens, truncates or follows what is already there.
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EEXIST { n += 1; continue }
                throw MediaPubError.output(requested, "Could not open file \"\(candidate)\" for writing: \(String(cString: strerror(code)))")
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let code = errno
                close(fd)
                throw MediaPubError.output(requested, "Could not open file \"\(candidate)\" for writing: \(String(cString: strerror(code)))")
            }
            // Locked for as long as it is written (RecordingLock). Another run's retention may have
            // looked at it, locked it a moment, and removed it, between the open and the lock:
            // the name is tried again while it still names the file made here.
            var now = stat()
            // A file system that takes no flock at all (an error other than "held") still records.
            let locked = flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK
            let same = lstat(candidate, &now) == 0 && now.st_dev == info.st_dev && now.st_ino == info.st_ino
            guard locked, same else {
                if same { unlink(candidate) }
                close(fd)
                tries += 1
                if tries % 3 == 0 { n += 1 }
                continue
            }
            return RecordingFile(requested: requested, path: candidate, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                                 lock: RecordingLock(locked: fd))
        }
        throw MediaPubError.output(requested, "\(requested) and \(maxSuffix) numbered names beside it exist already; nothing is overwritten")
    }

    /// `name.mp4` → `name-N.mp4` (the extension kept; a name without one gets `-N` at the end).
    static func numbered(_ path: String, _ n: Int) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let file = (path as NSString).lastPathComponent
        let ext = (file as NSString).pathExtension
        let stem = ext.isEmpty ? file : String(file.dropLast(ext.count + 1))
        let name = ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)"
        return folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
    }

    /// Whether the path still names the file created here (false once it, or its
    /// folder, was removed or replaced: what is written goes nowhere anyone can see).
    var isStillThere: Bool {
        var info = stat()
        return lstat(path, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Removes the file, but only while the path still names the regular file
    /// created here (not a folder or link put there since, nor a file that replaced it).
    func removeIfStillOurs() {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else { return }
        unlink(path)
    }
}
