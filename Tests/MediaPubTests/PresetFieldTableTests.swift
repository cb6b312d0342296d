import XCTest
@testable import MediaPub
@testable import MediaPubTestSupport

/// The preset's field table (PresetField, one list per section): every key decodes,
/// is range-checked as its reference says, is settable with `--set`, round-trips
/// through the resolved YAML, and is documented in docs/presets.md exactly as the
/// table describes it. Pure: no pipelines, no servers.
final class PresetFieldTableTests: XCTestCase {
    typealias K = PresetTestKit

    /// Every section, with the path its keys are shown under.
    static let sections: [(prefix: String, rows: [(key: String, row: String)])] = [
        rows(Preset.self, ""), rows(VideoConfig.self, "video."), rows(AudioConfig.self, "audio."),
        rows(PlayerConfig.self, "players[]."), rows(PlaylistConfig.self, "players[].playlist."),
        rows(CrossfadeConfig.self, "players[].playlist.crossfade."),
        rows(StandbyConfig.self, "standby."), rows(OutputConfig.self, "outputs[]."),
        rows(ReconnectConfig.self, "reconnect."), rows(StopConfig.self, "stop."), rows(EventsConfig.self, "events."),
        rows(ScheduleConfig.self, "schedule."), rows(PlaylistConfig.self, "schedule.filler."),
        rows(CrossfadeConfig.self, "schedule.filler.crossfade."),
        rows(ScheduleBlock.self, "schedule.blocks[]."), rows(PlaylistConfig.self, "schedule.blocks[].playlist."),
        rows(CrossfadeConfig.self, "schedule.blocks[].playlist.crossfade."),
        rows(LiveFeedConfig.self, "live."), rows(MonitorConfig.self, "monitor."),
        rows(SilenceCheck.self, "monitor.silence."), rows(PictureCheck.self, "monitor.picture."),
        rows(OverlayConfig.self, "overlays[]."),
        rows(LoudnessConfig.self, "audio.loudness."), rows(HTTPConfig.self, "http."),
    ]

    /// The reference row of each field: `| key | type | values | default | meaning |`.
    static func rows<S: PresetSection>(_ type: S.Type, _ prefix: String) -> (String, [(key: String, row: String)]) {
        (prefix, S.fields.map { f in
            let key = prefix + f.key
            let cells = ["`\(key)`", f.type, f.range.isEmpty ? "–" : f.range, S.defaultText(of: f), f.doc]
            return (key, "| " + cells.joined(separator: " | ") + " |")
        })
    }

    /// Every key path of the schema, `players[]`/`outputs[]` for list items.
    static func schemaKeys(_ schema: PresetSchema, _ prefix: String = "") -> [String] {
        switch schema {
        case .leaf: return []
        case .list(let item, _): return schemaKeys(item, prefix + "[]")
        case .map(let entries):
            return entries.flatMap { key, child in
                let path = prefix.isEmpty ? key : prefix + "." + key
                return [path] + schemaKeys(child, path)
            }
        }
    }

    /// A preset every sample is set on: two players (a source, a playlist), an output, video.
    let base = """
        video: {}
        players:
          - source: a.mp4
          - playlist: {items: [b.mp3]}
        outputs:
          - url: "null:"
        """

    /// For each settable key (as `--set` names it): the overrides that give it a
    /// value other than its default.
    static let samples: [String: [String]] = [
        "name": ["name=show-1"], "publishing": ["publishing=false"],
        "monitor.local": ["monitor.local=true"],
        "monitor.silence.below": ["monitor.silence.below=-40dBFS"], "monitor.silence.for": ["monitor.silence.for=30s"],
        "monitor.silence.action": ["monitor.silence.action=next"],
        "monitor.picture.black": ["monitor.picture.black=off"], "monitor.picture.frozen": ["monitor.picture.frozen=1m"],
        "monitor.picture.action": ["monitor.picture.action=standby"],
        "video.size": ["video.size=640x360"], "video.width": ["video.width=640"], "video.height": ["video.height=360"],
        "video.fps": ["video.fps=25"], "video.bitrate": ["video.bitrate=1M"], "video.keyframe_interval": ["video.keyframe_interval=1s"],
        "video.encoder": ["video.encoder=openh264"], "video.encoder_preset": ["video.encoder_preset=fast"],
        "video.tune": ["video.tune=quality"], "video.profile": ["video.profile=main"], "video.bframes": ["video.bframes=3"],
        "audio.sample_rate": ["audio.sample_rate=44100"], "audio.channels": ["audio.channels=1"], "audio.bitrate": ["audio.bitrate=96k"],
        "players.0.id": ["players.0.id=main"], "players.0.source": ["players.0.source=c.mp4"],
        "players.0.repeat": ["players.0.repeat=true"], "players.0.video": ["players.0.video=false"],
        "players.0.aux": ["players.0.aux=false"], "players.0.publish_volume": ["players.0.publish_volume=50"],
        "players.0.play_volume": ["players.0.play_volume=150%"], "players.0.mute_local": ["players.0.mute_local=true"],
        "players.0.speed": ["players.0.speed=2"], "players.0.pitch": ["players.0.pitch=-3.5"],
        "players.0.start_at": ["players.0.start_at=10s"], "players.0.progress_interval": ["players.0.progress_interval=500ms"],
        "players.0.memory": ["players.0.memory=true"],
        "players.1.playlist": ["players.1.playlist=[x.mp3, y.mp3]"],
        "players.1.playlist.items": ["players.1.playlist.items=[x.mp3]"],
        "players.1.playlist.file": ["players.1.playlist={mode: once}", "players.1.playlist.file=list.m3u"],
        "players.1.playlist.dir": ["players.1.playlist={mode: once}", "players.1.playlist.dir=media"],
        "players.1.playlist.mode": ["players.1.playlist.mode=shuffle"],
        "players.1.playlist.crossfade.duration": ["players.1.playlist.crossfade.duration=3s"],
        "players.1.playlist.crossfade.curve": ["players.1.playlist.crossfade={duration: 2s, curve: linear}"],
        "standby.image": ["standby.image=slate.png"], "standby.color": ["standby.color=\"#101010\""],
        "standby.audio": ["standby.audio=tone.wav"],
        "outputs.0.id": ["outputs.0.id=rec"], "outputs.0.url": ["outputs.0.url=rec.mp4"],
        "outputs.0.segment": ["outputs.0.url=rec-%H.mp4", "outputs.0.segment=1h"],
        "outputs.0.keep": ["outputs.0.url=rec.mp4", "outputs.0.keep=3"],
        "outputs.0.max_age": ["outputs.0.url=rec.mp4", "outputs.0.max_age=7d"],
        "reconnect.initial": ["reconnect.initial=2s"], "reconnect.max": ["reconnect.max=1m"],
        "reconnect.give_up_after": ["reconnect.give_up_after=never"], "reconnect.stall": ["reconnect.stall=7s"],
        "stop.after": ["stop.after=1h"], "stop.at_end": ["stop.at_end=false"],
        "events.webhook": ["events.webhook=https://hooks.example.com/mp"],
        "http.public_read": ["http.public_read=true"], "http.token_file": ["http.token_file=token"],
        "schedule.file": ["schedule.file=programme.yaml"],
        "schedule.timezone": [block, "schedule.timezone=Europe/Paris"],
        "schedule.player": [block, "schedule.player=player2"],
        "schedule.filler.items": [block, "schedule.filler.items=[x.mp3]"],
        "schedule.filler.file": [block, "schedule.filler.file=list.m3u"],
        "schedule.filler.dir": [block, "schedule.filler.dir=media"],
        "schedule.filler.mode": [block, "schedule.filler={items: [x.mp3], mode: once}"],
        "schedule.filler.crossfade.duration": [block, "schedule.filler={items: [x.mp3], crossfade: 1s}"],
        "schedule.filler.crossfade.curve": [block, "schedule.filler={items: [x.mp3], crossfade: {duration: 1s, curve: linear}}"],
        "schedule.blocks.0.id": [block, "schedule.blocks.0.id=b"],
        "schedule.blocks.0.at": [block, "schedule.blocks.0.at=2026-12-24 20:00:30"],
        "schedule.blocks.0.days": [block, "schedule.blocks.0.days=[mon-fri, sun]"],
        "schedule.blocks.0.until": [block, "schedule.blocks.0.until=09:00"],
        "schedule.blocks.0.duration": [block, "schedule.blocks.0.duration=90m"],
        "schedule.blocks.0.source": [block, "schedule.blocks.0.source=\"testsrc:\""],
        "schedule.blocks.0.playlist": ["schedule.blocks.0={id: a, at: \"07:00\", playlist: [x.mp3]}"],
        "schedule.blocks.0.playlist.items": ["schedule.blocks.0={id: a, at: \"07:00\", playlist: {items: [x.mp3]}}"],
        "schedule.blocks.0.playlist.file": ["schedule.blocks.0={id: a, at: \"07:00\", playlist: {file: list.m3u}}"],
        "schedule.blocks.0.playlist.dir": ["schedule.blocks.0={id: a, at: \"07:00\", playlist: {dir: media}}"],
        "schedule.blocks.0.playlist.mode": ["schedule.blocks.0={id: a, at: \"07:00\", playlist: {items: [x.mp3], mode: once}}"],
        "schedule.blocks.0.playlist.crossfade.duration":
            ["schedule.blocks.0={id: a, at: \"07:00\", playlist: {items: [x.mp3], crossfade: {duration: 4s}}}"],
        "schedule.blocks.0.playlist.crossfade.curve":
            ["schedule.blocks.0={id: a, at: \"07:00\", playlist: {items: [x.mp3], crossfade: {curve: linear}}}"],
        "schedule.blocks.0.publish_volume": [block, "schedule.blocks.0.publish_volume=50"],
        "schedule.blocks.0.play_volume": [block, "schedule.blocks.0.play_volume=150%"],
        "schedule.blocks.0.overrun": [block, "schedule.blocks.0.overrun=finish"],
        "live.source": [live, "live.source=\"rtmp://127.0.0.1/live/feed\""],
        "live.takeover_after": [live, "live.takeover_after=1s"], "live.release_after": [live, "live.release_after=5s"],
        "live.programme": [live, "live.programme=pause"], "live.fade": [live, "live.fade=200ms"],
        "overlays.0.id": [text, "overlays.0.id=other"], "overlays.0.image": [logo],
        "overlays.0.text": [text, "overlays.0.text=\"{player.player1.title} {clock:%H:%M}\""],
        "overlays.0.markup": [text, "overlays.0.markup=true"],
        "overlays.0.position": [text, "overlays.0.position=bottom-right"],
        "overlays.0.x": [text, "overlays.0.x=10", "overlays.0.y=5%"], "overlays.0.y": [text, "overlays.0.y=10", "overlays.0.x=5"],
        "overlays.0.margin": [text, "overlays.0.margin=5"], "overlays.0.width": [logo, "overlays.0.width=10%"],
        "overlays.0.opacity": [text, "overlays.0.opacity=50%"], "overlays.0.font": [text, "overlays.0.font=\"Sans Bold 30\""],
        "overlays.0.color": [text, "overlays.0.color=\"#FF0000\""], "overlays.0.outline": [text, "overlays.0.outline=\"#000000\""],
        "overlays.0.box": [text, "overlays.0.box=\"#00000080\""], "overlays.0.on_standby": [text, "overlays.0.on_standby=false"],
        "audio.loudness.target": ["audio.loudness.target=-16LUFS"], "audio.loudness.true_peak": ["audio.loudness.true_peak=-2dBTP"],
        "audio.loudness.max_gain": ["audio.loudness.max_gain=6dB"],
    ]

    /// A text and a logo overlay, that the `overlays` samples change.
    static let text = "overlays.0={id: np, text: hello}"
    static let logo = "overlays.0={id: logo, image: logo.png}"

    /// A live feed, that the `live` samples change.
    static let live = "live={source: \"srt://:9001?mode=listener\"}"

    /// A programme of one block, that the `schedule` samples change.
    static let block = "schedule.blocks.0={id: a, at: \"07:00\", source: x.mp3}"

    /// Values out of what a key allows, and the key the problem names.
    static let refused: [String: String] = [
        "video.size": "3x3", "video.width": "7681", "video.height": "15", "video.fps": "121", "video.bitrate": "60M",
        "video.keyframe_interval": "30s", "video.encoder": "quicksync", "video.encoder_preset": "quick",
        "video.tune": "film", "video.profile": "extended", "video.bframes": "17",
        "audio.sample_rate": "44000", "audio.channels": "3", "audio.bitrate": "1M",
        "players.0.publish_volume": "201", "players.0.play_volume": "-1", "players.0.speed": "5", "players.0.pitch": "13",
        "players.0.progress_interval": "2h", "players.1.playlist.mode": "random",
        "players.1.playlist.crossfade.duration": "31s", "players.1.playlist.crossfade.curve": "cosine",
        "monitor.silence.below": "-10dBFS", "monitor.silence.for": "2h", "monitor.picture.frozen": "0s",
        "monitor.picture.action": "skip",
        "audio.loudness.target": "-80LUFS", "audio.loudness.true_peak": "1dBTP", "audio.loudness.max_gain": "30dB",
    ]

    private func withFolder(_ body: (String) throws -> Void) throws {
        let dir = try K.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for file in ["slate.png", "tone.wav", "media/x.mp3"] {
            try FileManager.default.createDirectory(atPath: (dir + "/" + file as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            K.touch(dir + "/" + file)
        }
        K.touch(dir + "/list.m3u", "x.mp3\n")
        // A logo: a 64x32 PNG (decoded whole where it is checked).
        TestImages.write(TestImages.png(width: 64, height: 32), to: dir + "/logo.png")
        K.touch(dir + "/programme.yaml", "blocks: [{id: a, at: \"07:00\", source: x.mp3}]\n")
        K.touch(dir + "/token", "s3cret\n")
        chmod(dir + "/token", 0o600)
        try body(dir)
    }

    private func load(_ overrides: [String], in dir: String) throws -> Preset {
        try K.load(base, overrides: overrides, base: dir)
    }

    /// `players.0.speed` → `players[].speed`: the settable path as the reference names it.
    private static func tableKey(_ setPath: String) -> String {
        setPath.replacingOccurrences(of: #"^(players|outputs|schedule\.blocks|overlays)\.\d+"#, with: "$1[]", options: .regularExpression)
    }

    func testEveryLeafKeyHasASampleAndEverySampleNamesAKey() {
        let leaves = Set(Self.sections.flatMap(\.rows).map(\.key).filter { key in
            !Self.sections.contains { $0.prefix == key + "." || $0.prefix == key + "[]." }
        })
        let sampled = Set(Self.samples.keys.map(Self.tableKey)).subtracting(["players[].playlist", "schedule.blocks[].playlist"])
        XCTAssertEqual(sampled, leaves)
    }

    func testTheTableIsTheSchema() {
        let tableKeys = Self.sections.flatMap(\.rows).map(\.key).map { $0.replacingOccurrences(of: "[].", with: ".") }
        XCTAssertEqual(Set(tableKeys), Set(Self.schemaKeys(PresetSchema.root).map { $0.replacingOccurrences(of: "[]", with: "") }))
        XCTAssertEqual(tableKeys.count, Set(tableKeys).count, "no key twice in a section")
    }

    /// Every key, set with `--set`, decodes to something other than the default, and the
    /// resolved YAML reads back as the same preset.
    func testEveryKeyIsSettableDecodesAndRoundTrips() throws {
        try withFolder { dir in
            let plain = try load([], in: dir)
            for (key, overrides) in Self.samples.sorted(by: { $0.key < $1.key }) {
                let p: Preset
                do { p = try load(overrides, in: dir) } catch {
                    XCTFail("\(key): \(error)")
                    continue
                }
                XCTAssertNotEqual(p, plain, "\(key) changed nothing")
                let yaml = p.resolvedYAML(maskSecrets: false)
                XCTAssertEqual(try K.load(yaml, base: dir), p, "\(key) round trip:\n\(yaml)")
            }
        }
    }

    /// Out-of-range values are refused at their key, the message naming the values the
    /// reference lists.
    func testRangesAreCheckedAsDocumented() throws {
        let ranges = Dictionary(uniqueKeysWithValues: Self.sections.flatMap(\.rows).map { ($0.key, $0.row) })
        try withFolder { dir in
            for (key, value) in Self.refused.sorted(by: { $0.key < $1.key }) {
                let probs = K.problems(base, overrides: ["\(key)=\(value)"], base: dir)
                let shown = key.replacingOccurrences(of: #"^(players|outputs)\.(\d+)"#, with: "$1[$2]", options: .regularExpression)
                XCTAssertEqual(Set(probs.map(\.key)), [shown], key)
                guard let row = ranges[Self.tableKey(key)], let message = probs.first?.message else { continue }
                let values = row.split(separator: "|")[2].trimmingCharacters(in: .whitespaces)
                if key != "video.size" {
                    XCTAssertTrue(message.contains(values), "\(key): \"\(message)\" does not name \(values)")
                }
            }
        }
    }

    /// docs/presets.md has one row per key, exactly as the table renders it, and no
    /// row for a key the table does not have.
    func testTheReferenceMatchesTheTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/presets.md"), encoding: .utf8)
        let documented = doc.split(separator: "\n").map(String.init).filter {
            $0.range(of: #"^\| `[a-z_.\[\]]+` \|"#, options: .regularExpression) != nil
        }
        let expected = Self.sections.flatMap(\.rows)
        for (key, row) in expected where !documented.contains(row) {
            XCTFail("docs/presets.md: \(key) missing or out of date; the table says:\n\(row)")
        }
        let rows = Set(expected.map(\.row))
        for line in documented where !rows.contains(line) {
            XCTFail("docs/presets.md names a key the table does not have (or describes it otherwise):\n\(line)")
        }
        XCTAssertFalse(doc.contains("](http"), "the reference stands alone: no links out of the repository")
        // Its example is a preset that loads.
        let example = try XCTUnwrap(doc.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
        XCTAssertEqual(try K.load(example, env: ["STREAM_KEY": "k"]).players.map(\.id), ["background", "music"])
    }
}
