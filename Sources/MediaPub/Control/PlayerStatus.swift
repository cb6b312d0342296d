import Foundation

/// One player in `status.players`.
public struct PlayerStatus: Codable, Sendable, Equatable {
    public var id: String
    public var state: PlayerState
    /// Masked.
    public var source: String
    public var index: Int
    public var positionMs: Int
    /// null while unknown (an endless stream, or not loaded yet).
    public var durationMs: Int?
    public var speed: Double
    public var pitch: Double
    public var publishVolume: Int
    public var playVolume: Int
    public var aux: Bool
    public var `repeat`: Bool
    public var muteLocal: Bool
    public var nowPlaying: NowPlaying

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, state, source, index, speed, pitch, aux, `repeat`
        case positionMs = "position_ms"
        case durationMs = "duration_ms"
        case publishVolume = "publish_volume"
        case playVolume = "play_volume"
        case muteLocal = "mute_local"
        case nowPlaying = "now_playing"
    }

    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(state, forKey: .state)
        try c.encode(source, forKey: .source)
        try c.encode(index, forKey: .index)
        try c.encode(positionMs, forKey: .positionMs)
        try c.encode(durationMs, forKey: .durationMs)   // null, never left out
        try c.encode(speed, forKey: .speed)
        try c.encode(pitch, forKey: .pitch)
        try c.encode(publishVolume, forKey: .publishVolume)
        try c.encode(playVolume, forKey: .playVolume)
        try c.encode(aux, forKey: .aux)
        try c.encode(`repeat`, forKey: .repeat)
        try c.encode(muteLocal, forKey: .muteLocal)
        try c.encode(nowPlaying, forKey: .nowPlaying)
    }
}

extension PlayerStatus {
    /// What `player` shows now, its source masked.
    init(_ player: MediaPlayer) {
        let s = player.settings
        self.init(id: player.id, state: player.currentState, source: SecretMask.mask(url: player.currentSource),
                  index: player.currentIndex, positionMs: player.positionMs, durationMs: player.durationMs,
                  speed: s.speed, pitch: s.pitch, publishVolume: s.publishVolume, playVolume: s.playVolume,
                  aux: s.aux, repeat: s.repeat, muteLocal: s.muteLocal, nowPlaying: player.nowPlaying)
    }
}

extension PlayerState: Codable {}   // its raw value
extension OutputState: Codable {}   // its raw value

/// Now-playing tags: each of title, artist and album is a string or null (never left out).
extension NowPlaying: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case title, artist, album }

    public init(from decoder: Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(title: try c.decodeIfPresent(String.self, forKey: .title),
                  artist: try c.decodeIfPresent(String.self, forKey: .artist),
                  album: try c.decodeIfPresent(String.self, forKey: .album))
    }

    public func encode(to encoder: Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(title, forKey: .title)
        try c.encode(artist, forKey: .artist)
        try c.encode(album, forKey: .album)
    }
}
