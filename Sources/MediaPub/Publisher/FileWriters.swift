import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether some process has a file open for writing (docs/presets.md, Outputs: what
/// `keep` and `max_age` never remove). A program that takes no `flock` (ffmpeg, a
/// copy) is seen all the same: asked of the kernel with a read lease, which it grants
/// only while no one has the file open for writing, whoever they are; where a lease
/// cannot be had (another user's file, a file system without leases), each process'
/// descriptors in /proc are read instead (those of the processes this one may see).
enum FileWriters {
    /// What a read lease on a descriptor said.
    enum Lease: Equatable {
        /// No one writes the file; the lease holds until the descriptor is closed, and a
        /// writer opening the file meanwhile waits for that.
        case held
        /// Someone has it open for writing.
        case written
        /// No lease can be had here: ask /proc (`openForWriting`).
        case unavailable
    }

    // <fcntl.h> (Linux): F_SETLEASE, and a read lease.
    private static let setLease: Int32 = 1024
    private static let readLease: Int32 = 0

    /// The kernel breaks a lease by sending its holder SIGIO when another program opens
    /// the file for writing, and SIGIO's default action ends the process: ignored, once,
    /// before the first lease (the writer's open then waits only until the lease goes
    /// with its descriptor, a moment later), unless something already handles or ignores
    /// it (a program mediapub is embedded in keeps its own handler; docs/design.md).
    private static let leaseBreaksIgnored: Void = { _ = ignoreSIGIOIfUnhandled() }()

    /// Sets SIGIO's action to ignore it only where it is the default (which ends the process);
    /// a handler or an ignore set before stays. Whether it set it.
    @discardableResult
    static func ignoreSIGIOIfUnhandled() -> Bool {
        var current = sigaction()
        guard sigaction(SIGIO, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { return false }   // nil: SIG_DFL
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        return sigaction(SIGIO, &ignore, nil) == 0
    }

    /// Takes a read lease on `fd` (a descriptor opened read-only on a regular file).
    static func lease(_ fd: Int32) -> Lease {
        _ = leaseBreaksIgnored
        if fcntl(fd, setLease, readLease) == 0 { return .held }
        return errno == EAGAIN || errno == EBUSY ? .written : .unavailable
    }

    /// A file as /proc and stat name it.
    struct FileID: Hashable, Sendable {
        let device: UInt
        let inode: UInt
    }

    /// Whether anyone has the file open on `fd` open for writing: the lease's answer,
    /// else /proc's. A lease taken to ask goes with `fd`. Asking of many files, use a
    /// `WriterCheck` (it reads /proc once for all of them).
    static func exist(_ fd: Int32) -> Bool { WriterCheck().exist(fd) }

    /// Whether a process seen in /proc has the file (`device`, `inode`) open for writing.
    static func openForWriting(device: UInt, inode: UInt) -> Bool {
        openForWriting().contains(FileID(device: device, inode: inode))
    }

    /// The regular files processes seen in /proc have open for writing: each descriptor
    /// naming a regular file whose flags (fdinfo) are not read-only. Reads every
    /// descriptor of every process: once per `WriterCheck`.
    static func openForWriting() -> Set<FileID> {
        guard let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var files = Set<FileID>()
        for pid in processes where pid.allSatisfy(\.isNumber) {
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { continue }
            for fd in fds {
                var info = stat()
                guard stat("/proc/\(pid)/fd/\(fd)", &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                let file = FileID(device: UInt(info.st_dev), inode: UInt(info.st_ino))
                guard !files.contains(file), let flags = openFlags(pid: pid, fd: fd) else { continue }
                if flags & O_ACCMODE != O_RDONLY { files.insert(file) }
            }
        }
        return files
    }

    /// The `flags:` line of /proc/PID/fdinfo/FD (octal).
    private static func openFlags(pid: String, fd: String) -> Int32? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("flags:") {
            return Int32(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        }
        return nil
    }
}
