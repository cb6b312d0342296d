import Foundation

/// A fully resolved preset (docs/presets.md): defaults filled in, paths absolute,
/// playlists expanded, `${VAR}` replaced. Made by `PresetLoader`.
public struct Preset: Equatable, Sendable {
    /// Instance name (logs, control socket): `[A-Za-z0-9._-]+`; defaults to the
    /// preset file's basename without extension.
    public var name: String
    /// nil: an audio-only stream.
    public var video: VideoConfig?
    public var audio: AudioConfig
    /// 1...4 players.
    public var players: [PlayerConfig]
    public var standby: StandbyConfig
    /// The publishing flag at start.
    public var publishing: Bool
    /// May be empty (the CLI may supply `--output`).
    public var outputs: [OutputConfig]
    public var reconnect: ReconnectConfig
    public var stop: StopConfig
    /// The local sound device and the output's checks (docs/presets.md, monitor).
    public var monitoring: MonitorConfig
    /// Play the mix on the local sound device (`monitor: true`, `monitor.local`).
    public var monitor: Bool {
        get { monitoring.local }
        set { monitoring.local = newValue }
    }
    public var events: EventsConfig
    /// The clock-time programme (docs/presets.md, Schedule); nil: none.
    public var schedule: ScheduleConfig?
    /// A live feed that takes the output over (docs/presets.md, live); nil: none.
    public var live: LiveFeedConfig?
    /// Logos and texts drawn on the output picture (docs/presets.md, overlays).
    public var overlays: [OverlayConfig] = []
    /// The HTTP server's reading rule and token file (docs/presets.md, http).
    public var http = HTTPConfig()
    /// Path of the preset file as given.
    public var file: String
    /// Absolute folder of the preset file; relative paths were resolved against it.
    public var baseDirectory: String

    public init(name: String, video: VideoConfig? = VideoConfig(), audio: AudioConfig = AudioConfig(),
                players: [PlayerConfig], standby: StandbyConfig = StandbyConfig(), publishing: Bool = true,
                outputs: [OutputConfig] = [], reconnect: ReconnectConfig = ReconnectConfig(),
                stop: StopConfig = StopConfig(), monitor: Bool = false, events: EventsConfig = EventsConfig(),
                schedule: ScheduleConfig? = nil, live: LiveFeedConfig? = nil, file: String = "", baseDirectory: String = "") {
        self.name = name
        self.video = video
        self.audio = audio
        self.players = players
        self.standby = standby
        self.publishing = publishing
        self.outputs = outputs
        self.reconnect = reconnect
        self.stop = stop
        self.monitoring = MonitorConfig(local: monitor)
        self.events = events
        self.schedule = schedule
        self.live = live
        self.file = file
        self.baseDirectory = baseDirectory
    }

    /// The index of the player that feeds video (nil without a video section,
    /// or when no player has `video: true`).
    public var videoPlayerIndex: Int? {
        guard video != nil else { return nil }
        return players.firstIndex(where: { $0.video })
    }

    public static let maxPlayers = 4
}

public struct VideoConfig: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// bits/s
    public var bitrate: Int
    public var keyframeInterval: TimeInterval
    public var encoder: VideoEncoderKind
    public var encoderPreset: String
    public var tune: VideoTune
    /// B-frames between reference frames; 0 for none. Resolved: a preset that leaves it
    /// out gets `tune.defaultBFrames` (0 where the profile or the encoder has none).
    public var bframes: Int
    public var profile: H264Profile

    public init(width: Int = 1280, height: Int = 720, fps: Int = 30, bitrate: Int = 2_500_000,
                keyframeInterval: TimeInterval = 2, encoder: VideoEncoderKind = .x264,
                encoderPreset: String = "veryfast", tune: VideoTune = .zerolatency, bframes: Int = 0,
                profile: H264Profile = .high) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
        self.encoder = encoder
        self.encoderPreset = encoderPreset
        self.tune = tune
        self.bframes = bframes
        self.profile = profile
    }

    public static let widthRange = 16...7680
    public static let heightRange = 16...4320
    public static let fpsRange = 1...120
    public static let bitrateRange = 100_000...50_000_000
    public static let keyframeIntervalRange: ClosedRange<TimeInterval> = 0.1...20
    /// x264enc's own range.
    public static let bframesRange = 0...16
    public static let encoderPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast",
                                        "medium", "slow", "slower", "veryslow", "placebo"]
}

public struct AudioConfig: Equatable, Sendable {
    public var sampleRate: Int
    public var channels: Int
    /// bits/s
    public var bitrate: Int
    /// Loudness to a target (docs/presets.md, audio.loudness); nil: items play as they are.
    public var loudness: LoudnessConfig?

    public init(sampleRate: Int = 48000, channels: Int = 2, bitrate: Int = 128_000, loudness: LoudnessConfig? = nil) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrate = bitrate
        self.loudness = loudness
    }

    public static let sampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000]
    public static let channelsRange = 1...2
    public static let bitrateRange = 16_000...512_000
}

public struct PlayerConfig: Equatable, Sendable {
    /// `[A-Za-z0-9_-]+`, unique; defaults to `player1`, `player2`, ...
    public var id: String
    /// Exactly one of `source` and `playlist` is set. Resolved: URLs (`scheme:`)
    /// as written, plain paths made absolute.
    public var source: String?
    public var playlist: PlaylistConfig?
    public var `repeat`: Bool
    /// Feeds the video capture (at most one player).
    public var video: Bool
    /// Mix the player's audio into the stream.
    public var aux: Bool
    /// 0...200 %
    public var publishVolume: Int
    /// 0...200 %
    public var playVolume: Int
    public var muteLocal: Bool
    /// 0.5...4.0, pitch kept
    public var speed: Double
    /// semitones, -12...12
    public var pitch: Double
    public var startAt: TimeInterval
    public var progressInterval: TimeInterval
    /// Load the whole resource into memory first.
    public var memory: Bool

    public init(id: String, source: String? = nil, playlist: PlaylistConfig? = nil, repeat: Bool = false,
                video: Bool = false, aux: Bool = true, publishVolume: Int = 100, playVolume: Int = 100,
                muteLocal: Bool = false, speed: Double = 1.0, pitch: Double = 0, startAt: TimeInterval = 0,
                progressInterval: TimeInterval = 1, memory: Bool = false) {
        self.id = id
        self.source = source
        self.playlist = playlist
        self.repeat = `repeat`
        self.video = video
        self.aux = aux
        self.publishVolume = publishVolume
        self.playVolume = playVolume
        self.muteLocal = muteLocal
        self.speed = speed
        self.pitch = pitch
        self.startAt = startAt
        self.progressInterval = progressInterval
        self.memory = memory
    }

    public static let volumeRange = 0...200
    public static let speedRange: ClosedRange<Double> = 0.5...4.0
    public static let pitchRange: ClosedRange<Double> = -12...12
    public static let progressIntervalRange: ClosedRange<TimeInterval> = 0.1...3600
}

public enum PlaylistMode: String, Equatable, Sendable, CaseIterable {
    case loop
    case shuffle
    case repeatOne = "repeat-one"
    case once
}

public struct PlaylistConfig: Equatable, Sendable {
    /// Resolved items (from `items:`, an M3U `file:` or a `dir:`), never empty.
    public var items: [String]
    public var mode: PlaylistMode
    /// How the items overlap (off: a gapless cut).
    public var crossfade: CrossfadeConfig

    public init(items: [String], mode: PlaylistMode = .loop, crossfade: CrossfadeConfig = CrossfadeConfig()) {
        self.items = items
        self.mode = mode
        self.crossfade = crossfade
    }

    /// Extensions a `dir:` playlist picks up.
    public static let mediaExtensions: Set<String> = [
        "mp3", "mp4", "m4a", "aac", "flac", "wav", "ogg", "opus", "flv", "mkv", "webm", "mov", "ts",
        "png", "jpg", "jpeg",
    ]
}

public struct StandbyConfig: Equatable, Sendable {
    /// Slate image (absolute path or URL); exclusive with an explicit color.
    public var image: String?
    /// `#RRGGBB` (upper-case hex), default `#000000`.
    public var color: String
    /// Looped while on standby; nil = silence.
    public var audio: String?

    public init(image: String? = nil, color: String = "#000000", audio: String? = nil) {
        self.image = image
        self.color = color
        self.audio = audio
    }
}

public struct OutputConfig: Equatable, Sendable {
    /// `rtmp://`, `rtmps://`, `srt://`, `hls://`, `icecast://`, `file://` (absolute path), `null://`/`null:`, parsed.
    public var url: OutputURL
    /// The stable name given with `id:`; nil: the output is named by its index.
    public var id: String?
    /// Files only: a new file at the first keyframe after each boundary of this much output time.
    public var segment: TimeInterval?
    /// Files only: this output's files beyond the newest `keep` are removed.
    public var keep: Int?
    /// Files only: this output's files older than this are removed.
    public var maxAge: TimeInterval?

    public init(url: OutputURL, id: String? = nil, segment: TimeInterval? = nil, keep: Int? = nil,
                maxAge: TimeInterval? = nil) {
        self.url = url
        self.id = id
        self.segment = segment
        self.keep = keep
        self.maxAge = maxAge
    }
}

public struct ReconnectConfig: Equatable, Sendable {
    public var initial: TimeInterval
    public var max: TimeInterval
    /// `.infinity` when written `never`.
    public var giveUpAfter: TimeInterval
    /// An output whose peer acknowledges nothing for this long is reconnected (docs/presets.md, `reconnect.stall`).
    public var stall: TimeInterval

    public init(initial: TimeInterval = 1, max: TimeInterval = 30, giveUpAfter: TimeInterval = 600, stall: TimeInterval = 5) {
        self.initial = initial
        self.max = max
        self.giveUpAfter = giveUpAfter
        self.stall = stall
    }

    /// The wait before retry `attempt` (1, 2, …): `initial` doubled each time up to `max`,
    /// spread by ±20 % (`random` in 0..<1) so that outputs which failed together do not
    /// all call again in the same instant.
    public func delay(attempt: Int, random: Double) -> TimeInterval {
        let doublings = Double(Swift.max(0, Swift.min(attempt - 1, 60)))
        let base = Swift.min(max, initial * pow(2, doublings))
        return base * (0.8 + 0.4 * Swift.min(1, Swift.max(0, random)))
    }
}

public struct StopConfig: Equatable, Sendable {
    public var after: TimeInterval?
    /// Stop once every player has ended.
    public var atEnd: Bool

    public init(after: TimeInterval? = nil, atEnd: Bool = true) {
        self.after = after
        self.atEnd = atEnd
    }
}

public struct EventsConfig: Equatable, Sendable {
    /// http(s) URL events are POSTed to.
    public var webhook: String?

    public init(webhook: String? = nil) {
        self.webhook = webhook
    }
}
