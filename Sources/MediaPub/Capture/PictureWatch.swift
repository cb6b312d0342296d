import Foundation

/// A dead picture (docs/presets.md, monitor.picture): black, or still, for the check's
/// time. It reads a grid of luma samples of each picture (at most 64 × 36 of them,
/// never the whole frame), before any overlay. A pure value, told each tick's picture.
struct PictureWatch: Equatable {
    /// Luma, 0..255: a grid whose mean is below `blackMean`, with at most `brightShare`
    /// of its samples above `bright`, is black (BT.601 black is 16).
    static let blackMean = 22.0
    static let bright: UInt8 = 40
    static let brightShare = 0.005
    /// A sample that moved more than `moved` counts as a change; a picture with more
    /// than `movedShare` of them, or whose mean difference is above `meanMoved`, changed
    /// (less is the encoder's noise).
    static let moved = 16
    static let movedShare = 0.005
    static let meanMoved = 4.0

    /// Where the grid's samples are in an I420 frame's bytes.
    let offsets: [Int]
    private(set) var black: AlertSpell?
    private(set) var frozen: AlertSpell?
    /// The grid of the picture the current still spell is compared with.
    private var reference: [UInt8] = []
    private var grid: [UInt8] = []

    init(_ check: PictureCheck, layout: I420Layout, tickRate: Int) {
        black = check.black.map { AlertSpell(seconds: $0, tickRate: tickRate) }
        frozen = check.frozen.map { AlertSpell(seconds: $0, tickRate: tickRate) }
        offsets = Self.gridOffsets(layout)
    }

    /// The luma plane's sample points: up to 64 × 36, evenly spread, each in the middle of its cell.
    static func gridOffsets(_ layout: I420Layout) -> [Int] {
        let columns = max(1, min(64, layout.width)), rows = max(1, min(36, layout.height))
        var offsets: [Int] = []
        offsets.reserveCapacity(columns * rows)
        for r in 0..<rows {
            let y = (2 * r + 1) * layout.height / (2 * rows)
            for c in 0..<columns { offsets.append(layout.offsets[0] + y * layout.strides[0] + (2 * c + 1) * layout.width / (2 * columns)) }
        }
        return offsets
    }

    /// The picture at `tick` (an I420 frame's bytes): what changed, black's and frozen's.
    mutating func observe(_ frame: UnsafeRawBufferPointer, tick: UInt64) -> (black: AlertSpell.Change?, frozen: AlertSpell.Change?) {
        guard let last = offsets.last, last < frame.count else { return (nil, nil) }
        if grid.count != offsets.count { grid = [UInt8](repeating: 0, count: offsets.count) }
        // Read through pointers: a few thousand bytes, no bounds check each (the last offset is checked above).
        grid.withUnsafeMutableBufferPointer { out in
            offsets.withUnsafeBufferPointer { at in
                let bytes = frame.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for i in 0..<at.count { out[i] = bytes[at[i]] }
            }
        }
        let isBlack = Self.isBlack(grid)
        let blackChange = black?.update(isBlack, tick: tick)
        // A black picture is black, not also still; a change starts a new still spell.
        var still = false
        if !isBlack, reference.count == grid.count, !Self.changed(grid, from: reference) { still = true } else { swap(&reference, &grid) }
        return (blackChange, frozen?.update(still, tick: tick))
    }

    /// After the item was skipped: the black (else the still) spell counted again (AlertSpell.restart).
    mutating func restart(black isBlack: Bool) {
        if isBlack { black?.restart() } else { frozen?.restart() }
    }

    /// A tick not checked (AlertSpell.skip).
    mutating func skip() {
        black?.skip()
        frozen?.skip()
    }

    static func isBlack(_ grid: [UInt8]) -> Bool {
        guard !grid.isEmpty else { return false }
        var sum = 0, brightCount = 0
        grid.withUnsafeBufferPointer { g in
            for y in g {
                sum &+= Int(y)
                if y > bright { brightCount &+= 1 }
            }
        }
        return Double(sum) / Double(grid.count) < blackMean && Double(brightCount) <= brightShare * Double(grid.count)
    }

    static func changed(_ grid: [UInt8], from reference: [UInt8]) -> Bool {
        var total = 0, movedCount = 0
        grid.withUnsafeBufferPointer { g in
            reference.withUnsafeBufferPointer { r in
                for i in 0..<min(g.count, r.count) {
                    let d = abs(Int(g[i]) &- Int(r[i]))
                    total &+= d
                    if d > moved { movedCount &+= 1 }
                }
            }
        }
        let n = Double(grid.count)
        return Double(movedCount) > movedShare * n || Double(total) / n > meanMoved
    }
}
