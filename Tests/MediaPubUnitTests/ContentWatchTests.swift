// The checks of `monitor:` (docs/presets.md, monitor) as pure values: a spell held
// over ticks, dead air in a mix, a black or still picture on a grid of luma samples;
// and the preset's `monitor` key in both its forms. No pipelines.

import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

final class ContentWatchTests: XCTestCase {
    typealias K = PresetTestKit

    func testASpellIsRaisedAfterItsTicksAndClearedWhenTheConditionEnds() {
        var spell = AlertSpell(seconds: 10, tickRate: 25)
        var changes: [(UInt64, AlertSpell.Change)] = []
        for tick in UInt64(0)..<1000 {
            let holds = (100..<500).contains(tick)   // 16 s held from 4 s
            if let c = spell.update(holds, tick: tick) { changes.append((tick, c)) }
        }
        XCTAssertEqual(changes.map(\.0), [100, 350, 500])
        XCTAssertEqual(changes.map(\.1), [.began, .raised(since: 100), .cleared(since: 100)])
    }

    /// After `next` the spell is counted again: the next item silent too is raised in its turn,
    /// and one `cleared` ends it all when sound returns.
    func testARestartedSpellIsRaisedAgainAndClearedOnce() {
        var spell = AlertSpell(ticks: 10)
        var changes: [(UInt64, AlertSpell.Change)] = []
        for tick in UInt64(0)..<40 {
            if let c = spell.update(tick < 30, tick: tick) {
                changes.append((tick, c))
                if case .raised = c { spell.restart() }
            }
        }
        XCTAssertEqual(changes.map(\.0), [0, 10, 11, 21, 22, 30])
        XCTAssertEqual(changes.map(\.1), [.began, .raised(since: 0), .began, .raised(since: 11), .began, .cleared(since: 11)])
    }

    /// Ticks not checked (the publishing flag off) forget a spell not yet raised, and keep a raised one.
    func testUncheckedTicksForgetASpellNotYetRaised() {
        var spell = AlertSpell(ticks: 10)
        for tick in UInt64(0)..<8 { _ = spell.update(true, tick: tick) }
        spell.skip()
        XCTAssertEqual(spell.update(true, tick: 50), .began, "counted from 50, not from 0")
        XCTAssertNil(spell.update(true, tick: 59))
        XCTAssertEqual(spell.update(true, tick: 60), .raised(since: 50))
        spell.skip()
        XCTAssertEqual(spell.update(false, tick: 70), .cleared(since: 50))
    }

    func testASpellShorterThanItsTimeIsNeverRaised() {
        var spell = AlertSpell(seconds: 10, tickRate: 50)
        let changes = (UInt64(0)..<2000).compactMap { spell.update($0 % 400 < 300, tick: $0) }
        XCTAssertFalse(changes.contains { if case .raised = $0 { true } else { false } }, "\(changes)")
    }

    func testSilenceIsThePeakBelowTheLevel() {
        let threshold = SilenceWatch(SilenceCheck(below: -50), tickRate: 50).threshold
        XCTAssertEqual(Double(threshold), 0.003162, accuracy: 1e-5)
        var hiss = (0..<1764).map { i in Float(0.002 * sin(Double(i))) }   // about -54 dBFS peak
        XCTAssertTrue(SilenceWatch.isSilent(hiss, count: hiss.count, below: threshold))
        hiss[900] = 0.01   // one click above it
        XCTAssertFalse(SilenceWatch.isSilent(hiss, count: hiss.count, below: threshold))
        XCTAssertTrue(SilenceWatch.isSilent(hiss, count: 900, below: threshold), "only the tick's samples count")
    }

    /// An I420 frame of 320x180 whose luma is `luma(x, y)`.
    private func frame(_ layout: I420Layout, _ luma: (Int, Int) -> UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: 128, count: layout.size)
        for y in 0..<layout.height {
            for x in 0..<layout.width { bytes[layout.offsets[0] + y * layout.strides[0] + x] = luma(x, y) }
        }
        return bytes
    }

    func testBlackAndFrozenPicturesAreTold() {
        let layout = I420Layout(width: 320, height: 180)
        var watch = PictureWatch(PictureCheck(black: 1, frozen: 1), layout: layout, tickRate: 25)
        XCTAssertLessThanOrEqual(watch.offsets.count, 64 * 36, "a grid, not every pixel")
        var black: [(UInt64, AlertSpell.Change)] = [], frozen: [(UInt64, AlertSpell.Change)] = []
        for tick in UInt64(0)..<200 {
            let t = Int(tick)
            let bytes: [UInt8]
            switch t {
            case 0..<50:    // black, with encoder noise
                bytes = frame(layout) { x, y in UInt8(16 + (x &+ y &+ t) % 3) }
            case 50..<100:  // still, with noise of ±2
                bytes = frame(layout) { x, y in UInt8(100 + (x / 8) % 50 + (x &* y &+ t) % 3) }
            default:        // moving: a ramp scrolling 7 pixels a frame
                bytes = frame(layout) { x, _ in UInt8(60 + ((x + 7 * t) % 64) * 2) }
            }
            let seen = bytes.withUnsafeBytes { watch.observe($0, tick: tick) }
            if let c = seen.black { black.append((tick, c)) }
            if let c = seen.frozen { frozen.append((tick, c)) }
        }
        XCTAssertEqual(black.map(\.0), [0, 25, 50])
        XCTAssertEqual(black.map(\.1), [.began, .raised(since: 0), .cleared(since: 0)])
        XCTAssertEqual(frozen.map(\.0), [51, 76, 100], "black is not also still; the still spell begins on its second frame")
        XCTAssertEqual(frozen.map(\.1), [.began, .raised(since: 51), .cleared(since: 51)])
    }

    func testAPictureThatDriftsSlowlyIsNotFrozen() {
        let layout = I420Layout(width: 320, height: 180)
        var watch = PictureWatch(PictureCheck(black: nil, frozen: 1), layout: layout, tickRate: 25)
        // 1 level a frame everywhere: no two frames differ beyond noise, but the picture moves.
        let raised = (UInt64(0)..<100).contains { tick in
            let bytes = frame(layout) { x, _ in UInt8(30 + x / 4 + Int(tick)) }
            return bytes.withUnsafeBytes { watch.observe($0, tick: tick) }.frozen.map { if case .raised = $0 { true } else { false } } ?? false
        }
        XCTAssertFalse(raised)
    }

    // MARK: the preset's monitor key

    let players = "video: {}\nplayers:\n  - source: a.mp4\n"

    func testMonitorTrueOrFalseIsTheLocalDeviceAsBefore() throws {
        let p = try K.load(players + "monitor: true\n")
        XCTAssertTrue(p.monitor)
        XCTAssertEqual(p.monitoring, MonitorConfig(local: true))
        XCTAssertTrue(p.resolvedYAML().contains("\nmonitor: true\n"), "written back as it was")
    }

    func testTheMappingGivesTheChecksAndTheLocalDevice() throws {
        let p = try K.load(players + """
            monitor:
              local: true
              silence: { below: -45dBFS, for: 8s, action: standby }
              picture: { black: 12s, frozen: off, action: next }
            """)
        XCTAssertTrue(p.monitor)
        XCTAssertEqual(p.monitoring.silence, SilenceCheck(below: -45, duration: 8, action: .standby))
        XCTAssertEqual(p.monitoring.picture, PictureCheck(black: 12, frozen: nil, action: .next))
        XCTAssertEqual(try K.load(p.resolvedYAML()), p, p.resolvedYAML())
        let defaults = try K.load(players + "monitor: { silence: {}, picture: {} }\n")
        XCTAssertFalse(defaults.monitor)
        XCTAssertEqual(defaults.monitoring.silence, SilenceCheck(below: -50, duration: 10, action: .alert))
        XCTAssertEqual(defaults.monitoring.picture, PictureCheck(black: 10, frozen: 10, action: .alert))
    }

    func testBadMonitorValuesAreRefusedAtTheirKey() {
        let probs = K.problems(players + """
            monitor:
              silence: { below: loud, for: 0s, action: shout }
              picture: { black: 1h30m, frozen: often }
              speakers: true
            """)
        XCTAssertEqual(probs.map(\.description).sorted(), [
            "presets/t.yaml:5: monitor.silence.below: \"loud\" is not a level like -50dBFS",
            "presets/t.yaml:5: monitor.silence.for: 0s is out of range 1s..1h",
            "presets/t.yaml:5: monitor.silence.action: \"shout\" is not one of alert, standby, next",
            "presets/t.yaml:6: monitor.picture.black: 1h30m is out of range 1s..1h",
            "presets/t.yaml:6: monitor.picture.frozen: \"often\" is not a duration (like 500ms, 2s, 10m, 1h30m, 01:30:00 or off)",
            "presets/t.yaml:7: monitor.speakers: unknown key",
        ].sorted())
        XCTAssertEqual(K.problems("players:\n  - source: a.mp3\nmonitor: { picture: {} }\n").map(\.description),
                       ["presets/t.yaml:3: monitor.picture: the preset has no video to check (add a video section, or leave picture out)"])
        XCTAssertEqual(K.problems(players + "monitor: perhaps\n").map(\.description),
                       ["presets/t.yaml:4: monitor: \"perhaps\" is not true or false"])
    }
}
