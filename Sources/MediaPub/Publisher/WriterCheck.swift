import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One prune's way of asking whether files are open for writing (FileWriters; docs/presets.md,
/// Outputs: what `keep` and `max_age` never remove): a read lease on each file, and where no
/// lease can be had, /proc, read at most once however many files are asked about, and only
/// once one needs it (reading it is every descriptor of every process). A prune takes a new
/// one, so what it knows is as old as the prune.
final class WriterCheck {
    private let lease: (Int32) -> FileWriters.Lease
    private let scan: () -> Set<FileWriters.FileID>
    private var written: Set<FileWriters.FileID>?

    /// `lease` and `scan` are the kernel's (FileWriters) unless a test counts them.
    init(lease: @escaping (Int32) -> FileWriters.Lease = FileWriters.lease,
         scan: @escaping () -> Set<FileWriters.FileID> = FileWriters.openForWriting) {
        self.lease = lease
        self.scan = scan
    }

    /// Whether anyone has the file open on `fd` open for writing: the lease's answer, else
    /// /proc's (read the first time it is needed). A lease taken to ask goes with `fd`.
    func exist(_ fd: Int32) -> Bool {
        switch lease(fd) {
        case .held: return false
        case .written: return true
        case .unavailable:
            var info = stat()
            guard fstat(fd, &info) == 0 else { return false }
            if written == nil { written = scan() }
            return written?.contains(FileWriters.FileID(device: UInt(info.st_dev), inode: UInt(info.st_ino))) == true
        }
    }
}
