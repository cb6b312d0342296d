import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a run holds on each HLS playlist it writes (docs/presets.md, Outputs): a
/// second run to the same playlist (the same folder and name: its segments' names
/// too) is refused at start, naming the instance that writes it. hlssink2 replaces
/// the playlist file at every write, so the lock is a hidden file beside it,
/// `.index.m3u8.lock`, that holds the instance's name and process id and is locked
/// (`flock`) for the whole run; it is removed at the end.
final class HLSPlaylistLock: Sendable {
    let path: String
    private let fd: Mutex<Int32>

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = Mutex(fd)
    }

    /// The playlist is written by another running instance.
    struct InUse: Error, CustomStringConvertible {
        let playlist: String
        let holder: String
        var description: String {
            "hls://\(playlist) is written by the running instance \(holder): one run per playlist"
        }
    }

    /// Takes the lock of each playlist of `targets` for the instance `name`; nil for one
    /// whose folder cannot take the lock file (the output fails as it would anyway).
    static func acquire(_ targets: [OutputTarget], instance name: String) throws(InUse) -> [HLSPlaylistLock] {
        var locks: [HLSPlaylistLock] = []
        for case .hls(let hls) in targets {
            do { if let lock = try acquire(hls.playlist, instance: name) { locks.append(lock) } } catch {
                locks.forEach { $0.release() }
                throw error
            }
        }
        return locks
    }

    private static func acquire(_ playlist: String, instance name: String) throws(InUse) -> HLSPlaylistLock? {
        let folder = (playlist as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stem = ((playlist as NSString).lastPathComponent as NSString).deletingPathExtension
        let path = (folder as NSString).appendingPathComponent(".\(stem).m3u8.lock")
        for _ in 0..<3 {
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return nil }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                var bytes = [UInt8](repeating: 0, count: 256)
                let n = read(fd, &bytes, bytes.count)
                close(fd)
                let text = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                throw InUse(playlist: playlist, holder: text.isEmpty ? "(unnamed)" : text.clipped())
            }
            // Locked; but a run that just ended may have removed the file it held: take it again.
            var held = stat(), now = stat()
            guard fstat(fd, &held) == 0, lstat(path, &now) == 0, held.st_dev == now.st_dev, held.st_ino == now.st_ino else {
                close(fd)
                continue
            }
            let text = Array("\"\(name)\" (pid \(getpid()))\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            return HLSPlaylistLock(path: path, fd: fd)
        }
        return nil
    }

    /// The run ends: the lock file goes (while still locked), then the lock.
    func release() {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            unlink(path)
            close(fd)
            fd = -1
        }
    }
}
