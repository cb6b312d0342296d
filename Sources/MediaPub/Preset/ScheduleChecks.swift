import Foundation

/// A programme's blocks, read and checked across each other (docs/presets.md, Schedule):
/// ids are unique, and no two blocks start at the same instant on any day.
extension PresetDecoder {
    mutating func decodeBlocks(_ node: YAMLNode?, _ key: String, section: YAMLNode) -> [ScheduleBlock] {
        guard let node, !node.isNull, let items = node.items, !items.isEmpty else {
            let got = node.map { $0.isNull || $0.items != nil ? "" : ", got \($0.kindName)" } ?? ""
            report(node ?? section, key, "a programme needs a list of blocks\(got)")
            return []
        }
        var blocks: [ScheduleBlock] = []
        var clean: [Int] = []
        for (i, item) in items.enumerated() {
            let before = problems.count
            var block = ScheduleBlock.presetDefault
            decodeSection(item, "\(key)[\(i)]", into: &block, index: i, count: items.count)
            blocks.append(block)
            if problems.count == before { clean.append(i) }
        }
        var ids: [String: Int] = [:]
        for (i, block) in blocks.enumerated() where !block.id.isEmpty {
            if let other = ids[block.id] {
                report(items[i]["id"] ?? items[i], "\(key)[\(i)].id", "duplicate block id \"\(block.id)\" (also \(key)[\(other)])")
            } else {
                ids[block.id] = i
            }
        }
        // Starts are compared between blocks read without a problem, each with the first
        // earlier block at each of its wall times (looked up, never compared pairwise).
        var daily: [Int: Int] = [:], datedOnWeekday: [Int: Int] = [:], dated: [LocalDateTime: Int] = [:]
        func slot(_ second: Int, _ day: Weekday) -> Int { (day.rawValue - 1) * 86400 + second }
        for i in clean {
            let block = blocks[i]
            var earlier = Set<Int>()
            switch block.at {
            case .daily(let second):
                for day in block.days {
                    for j in [daily[slot(second, day)], datedOnWeekday[slot(second, day)]].compactMap({ $0 }) { earlier.insert(j) }
                    if daily[slot(second, day)] == nil { daily[slot(second, day)] = i }
                }
            case .once(let when):
                let key = slot(when.secondOfDay, when.date.weekday)
                for j in [dated[when], daily[key]].compactMap({ $0 }) { earlier.insert(j) }
                if dated[when] == nil { dated[when] = i }
                if datedOnWeekday[key] == nil { datedOnWeekday[key] = i }
            }
            for j in earlier.sorted() {
                if let when = Self.collision(blocks[j], block) {
                    report(items[i]["at"] ?? items[i], "\(key)[\(i)].at",
                           "starts at the same time as \"\(blocks[j].id)\" (\(key)[\(j)]) \(when); give one of them another time")
                }
            }
        }
        return blocks
    }

    /// When two blocks start at the same wall time: "on 2026-12-24", "at 12:00:00 on mon-fri"; nil: never.
    static func collision(_ a: ScheduleBlock, _ b: ScheduleBlock) -> String? {
        guard a.secondOfDay == b.secondOfDay else { return nil }
        let clock = LocalDateTime.clock(a.secondOfDay)
        switch (a.at, b.at) {
        case (.daily, .daily):
            let both = a.days.intersection(b.days)
            return both.isEmpty ? nil : "at \(clock) \(both.count == 7 ? "every day" : "on " + ScheduleBlock.daysText(both))"
        case (.once(let when), .daily), (.daily, .once(let when)):
            let daily = a.at == .once(when) ? b : a
            return daily.days.contains(when.date.weekday) ? "on \(when)" : nil
        case (.once(let x), .once(let y)):
            return x == y ? "on \(x)" : nil
        }
    }
}
