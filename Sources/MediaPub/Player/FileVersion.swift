import Foundation

/// A file as `stat` sees it now: size, modification time and inode. Two looks that give
/// the same version saw the same content (as make and rsync judge it): a cached probe of
/// it holds (ItemDurations, ItemLoudness), a watched file has not changed (ProgrammeFileWatch).
struct FileVersion: Equatable, Sendable {
    let size: Int64
    let modified: Int64
    let inode: UInt64
    /// A regular file (not a FIFO, a device or a folder): one that can be read twice.
    let isRegularFile: Bool

    /// nil when `path` cannot be looked at (not there).
    init?(path: String) {
        TimelineThread.assertOff("a file's stat")
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
        isRegularFile = info.st_mode & S_IFMT == S_IFREG
    }

    /// A player item's version: a local file's; nil for anything else (or a file not there).
    init?(item: String) {
        guard let path = (try? SourceSpec(item))?.localPath else { return nil }
        self.init(path: path)
    }
}
