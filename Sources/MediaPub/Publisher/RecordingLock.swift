import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The advisory lock (`flock`) a recording holds on its file for as long as the file
/// is written (docs/presets.md, Outputs): whoever keeps files of the same pattern,
/// this run or another one, never removes a file that is locked. Held on a descriptor
/// of its own, closed once (`release`, or when the lock goes).
final class RecordingLock: Sendable {
    private let fd: Mutex<Int32>

    /// Takes over `fd`, already locked.
    init(locked fd: Int32) { self.fd = Mutex(fd) }

    deinit { release() }

    /// The file is finished: the lock and its descriptor go.
    func release() {
        fd.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// What became of a file asked to be removed.
    enum Removal: Equatable {
        case removed
        /// Someone holds it locked: it is being written.
        case held
        /// Gone already, or no longer a regular file (a link or folder put there since).
        case gone
        case failed(String)
    }

    /// Removes the regular file at `path` unless someone is writing it: opened without
    /// following a link and without waiting (a FIFO), locked without waiting, and
    /// unlinked only while that lock is held and the path still names the file locked.
    static func remove(_ path: String, writers: WriterCheck = WriterCheck()) -> Removal {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            return code == ENOENT || code == ELOOP || code == ENXIO ? .gone : .failed(String(cString: strerror(code)))
        }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, (opened.st_mode & S_IFMT) == S_IFREG else { return .gone }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            return code == EWOULDBLOCK ? .held : .failed(String(cString: strerror(code)))
        }
        // Nor while any process has it open for writing, lock or not (FileWriters); the
        // lease, where one is had, holds off a writer's open until the file is gone.
        if writers.exist(fd) { return .held }
        var now = stat()
        guard lstat(path, &now) == 0, now.st_dev == opened.st_dev, now.st_ino == opened.st_ino else { return .gone }
        if unlink(path) != 0 {
            let code = errno
            return code == ENOENT ? .gone : .failed(String(cString: strerror(code)))
        }
        return .removed
    }

    /// Whether someone holds the file at `path` locked (it is being written).
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }   // the probe's own lock, if it got it, goes with it
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Whether the file at `path` is being written: someone holds it locked, or some
    /// process has it open for writing (FileWriters), with or without a lock.
    static func isWritten(_ path: String, writers: WriterCheck = WriterCheck()) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }   // the probe's own lock and lease, if it got them, go with it
        if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK { return true }
        return writers.exist(fd)
    }
}
