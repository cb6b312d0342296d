// Values of the typed status and events with every field filled in (and some
// left out), for the unit tests of their encoding, of /metrics and of docs/.

import Foundation
@testable import MediaPub

enum TypedSamples {
    static let player = PlayerStatus(
        id: "music", state: .playing, source: "/m/b.flac", index: 1, positionMs: 12000, durationMs: nil,
        speed: 1.5, pitch: -3, publishVolume: 40, playVolume: 100, aux: true, repeat: false, muteLocal: false,
        nowPlaying: NowPlaying(title: "T", artist: "A", album: nil))

    static var srt: SRTStats {
        var s = SRTStats()
        s.rttMs = 12.5
        s.packetsSent = 100
        s.acksReceived = 10
        s.packetsLost = 2
        s.retransmitted = 3
        s.dropped = 1
        return s
    }

    /// One output with nothing optional, one with everything (error, bytes_acked, srt, callers).
    static var outputs: [OutputStatus] {
        [OutputStatus(id: "0", url: "rtmp://h/app/****", state: .publishing, bytesSent: 1843200, reconnects: 0,
                      bitrateKbps: 2610, error: nil, srt: nil, bytesAcked: nil),
         OutputStatus(id: "srt", url: "srt://h:9000", state: .reconnecting, bytesSent: 2048, reconnects: 3,
                      bitrateKbps: 0, error: "stalled", srt: srt, bytesAcked: 1024, callers: 2)]
    }

    static var status: RunStatus {
        RunStatus(name: "bgm", state: .running, uptimeMs: 81234, publishing: true, outputTimeMs: 81000,
                  players: [player], outputs: outputs, schedule: schedule, live: live, alerts: alerts,
                  overlays: [OverlayStatus(id: "logo", visible: true, text: nil, image: "/srv/logo.png", opacity: 70,
                                           onStandby: true, sinceMs: 0)], loudness: loudness,
                  timeline: TimelineStatus(lagMs: 12))
    }

    /// A black picture in progress, after two alerts of dead air.
    static let alert = ContentAlert(kind: .black, player: "tv", source: "/srv/film.mp4", action: .standby, beganMs: 60_000,
                                    beganAt: "2026-03-29T10:01:00.000Z", outputMs: 70_000)
    static let alerts = AlertStatus(silence: 2, black: 1, frozen: 0, active: [alert])

    /// A programme with a block on air and one ahead.
    static var schedule: ScheduleStatus {
        ScheduleStatus(timezone: "Europe/Paris", now: "2026-03-29 12:00:21 +02:00", block: "news",
                       scheduledAt: "2026-03-29 12:00:00 +02:00", lateMs: 40, item: "/srv/news.mp4", offsetMs: 21000,
                       next: [ScheduleStatus.Upcoming(block: "music", at: "2026-03-29 13:00:00 +02:00", inMs: 3_579_000)])
    }

    /// The output's loudness, the integrated loudness not known yet.
    static let loudness = LoudnessStatus(momentaryLUFS: -22.4, shortTermLUFS: -23.1, integratedLUFS: nil, limiterReductionDB: 1.5, targetLUFS: -23)

    /// A live feed on air.
    static let live = LiveFeedStatus(state: .onAir, source: "srt://:9001?mode=listener&passphrase=****", mode: "auto", onAirMs: 12_000,
                                   delayMs: 240, framesDropped: 3, framesRepeated: 4, bitrateKbps: 1500)

    /// What two consumers lost by falling behind (`/metrics`).
    static let drops = [ConsumerDrops(consumer: "stdout", dropped: 120), ConsumerDrops(consumer: "log", dropped: 0)]

    /// Every event kind, with every field it can have.
    static let events: [Event] = [
        .runState(.running, name: "bgm"),
        .playerState(player: "music", state: .error, error: "boom"),
        .playerProgress(player: "music", positionMs: 1500, durationMs: 184000),
        .playerTrack(player: "music", index: 2, source: "/srv/a.flac", durationMs: 184000,
                     tags: NowPlaying(title: "Song", artist: "Artist", album: "Album"),
                     loudness: TrackLoudness((-17.2, -5.8))),
        .publishing(false),
        .outputState(output: "archive", url: "rtmp://h/app/****", state: .reconnecting, error: "stalled: x"),
        .warning("w"),
        .error("e"),
        .runStopped(reason: "content ended", exitCode: 0),
        .scheduleBlock(block: "news", state: .started, scheduledAt: "2026-03-29 12:00:00 +02:00", lateMs: 40, joinedAtMs: 21000),
        .liveState(state: .released, source: "srt://:9001?mode=listener", reason: "nothing from the feed for 3s"),
        .alert(alert),
        .cleared(ContentAlert(kind: .silence, player: "music", source: "/srv/a.flac", action: .next, beganMs: 5_000,
                              beganAt: "2026-03-29T10:00:05.000Z", outputMs: 15_000)),
        .overlay(name: "logo", state: "hidden", outputMs: 12_040),
        .timelineLate(lagMs: 1_240, outputMs: 30_000),
        .timelineCaughtUp(lateForMs: 3_100, worstLagMs: 2_050, outputMs: 33_400),
    ]

    /// The JSON `value` encodes to.
    static func json<T: Encodable>(_ value: T) throws -> JSONValue {
        guard let text = JSONLine.text(value), let json = JSONLine.decode(JSONValue.self, from: text) else {
            throw CocoaError(.coderInvalidValue)
        }
        return json
    }

    /// The keys of a JSON object (none for other values).
    static func keys(_ value: JSONValue?) -> Set<String> {
        if case .object(let o)? = value { return Set(o.keys) }
        return []
    }

    /// The first element of a JSON array.
    static func first(_ value: JSONValue?) -> JSONValue? {
        if case .array(let a)? = value { return a.first }
        return nil
    }
}
