import XCTest
@testable import MediaPub

/// Each transport's health signal, fed readings by hand (no socket, no element): what
/// it calls acknowledged and when it calls the link stalled.
final class LinkProbeTests: XCTestCase {
    private let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000_000)

    /// An RTMP reading with media in: `written` by rtmp2sink, `queued` still in the socket.
    private func rtmp(_ written: Int, queued: Int?, serverAcked: Int = 0) -> RTMPProbe.Reading {
        RTMPProbe.Reading(written: written, mediaPushed: true, serverAcked: serverAcked, unacknowledged: queued)
    }

    func testRTMPCommandsAcknowledgedAreNotTheStream() {
        var probe = RTMPProbe(limit: 3, now: t0)
        // Written before any media went in: the connect, createStream and publish commands.
        XCTAssertEqual(probe.observe(RTMPProbe.Reading(written: 400, mediaPushed: false), produced: false, publishing: false, at: t0 + 1),
                       LinkVerdict())
        XCTAssertEqual(probe.commandBytes, 400)
        XCTAssertFalse(probe.observe(rtmp(400, queued: 0), produced: true, publishing: false, at: t0 + 2).acknowledged,
                       "only the commands are acknowledged")
        XCTAssertTrue(probe.observe(rtmp(5000, queued: 100), produced: true, publishing: false, at: t0 + 3).acknowledged)
        XCTAssertEqual(probe.acked, 4900)
    }

    func testRTMPServerThatAcknowledgesNothingStallsAfterTheLimit() {
        var probe = RTMPProbe(limit: 3, now: t0)
        XCTAssertFalse(probe.observe(rtmp(1000, queued: 0), produced: true, publishing: true, at: t0 + 1).stalled)
        // Acknowledged up to 1500 at second 2; from then on the socket holds all that is written.
        let stalls = (2...6).filter { second in
            probe.observe(rtmp(1000 + second * 500, queued: second * 500 - 500), produced: true, publishing: true,
                          at: t0 + Double(second)).stalled
        }
        XCTAssertEqual(stalls, [5, 6])
        XCTAssertEqual(probe.acked, 1500)
    }

    func testRTMPServerAcknowledgementsCountBesideItsTCPStack() {
        var probe = RTMPProbe(limit: 2, now: t0)
        _ = probe.observe(rtmp(1000, queued: nil), produced: true, publishing: true, at: t0 + 1)
        // No socket found: only the server's own acknowledgements tell.
        let stalls = (2...8).filter { second in
            probe.observe(rtmp(1000 * second, queued: nil, serverAcked: second % 2 == 0 ? 500 * second : 0), produced: true,
                          publishing: true, at: t0 + Double(second)).stalled
        }
        XCTAssertEqual(stalls, [], "the server acknowledged more every other second")
    }

    /// Readings every 0.25 s for `seconds` of 12.5 KB/s acknowledged by the server's TCP
    /// stack, its window given by `window` (nil: none told); the seconds at which a stall
    /// was decided.
    private func rtmpStalls(limit: TimeInterval = 3, seconds: Double, window: (Double) -> Int?,
                            acknowledging: (Double) -> Bool = { _ in true }) -> [Double] {
        var probe = RTMPProbe(limit: limit, now: t0)
        var acked = 1000
        return stride(from: 0.25, through: seconds, by: 0.25).filter { t in
            if acknowledging(t) { acked += 3125 }
            var reading = rtmp(acked + 500, queued: 500)
            reading.window = window(t)
            return probe.observe(reading, produced: true, publishing: true, at: t0 + t).stalled
        }
    }

    func testRTMPServerThatStopsReadingIsStalledThoughItsKernelStillAcknowledges() {
        // nginx-rtmp frozen at 10 s and 100 kb/s: its TCP stack goes on taking the stream
        // in, and its window shrinks (a KB every 2 s) and never opens again.
        let frozen = rtmpStalls(seconds: 20) { t in t < 10 ? 113_664 : 113_664 - 1024 * (1 + Int((t - 10) / 2)) }
        XCTAssertEqual(frozen.first, 12.75, "3 s after the last reading that saw it reading (9.75 s): \(frozen)")
        XCTAssertEqual(frozen.last, 20)
        // Without the window, the kernel's acknowledgements alone: never stalled.
        XCTAssertEqual(rtmpStalls(seconds: 20) { _ in nil }, [])
    }

    func testRTMPServerThatReadsIsNeverStalled() {
        XCTAssertEqual(rtmpStalls(seconds: 60) { _ in 113_664 }, [], "an open window that stays open")
        // A server that falls behind for a moment and catches up: the window shrinks and opens again.
        XCTAssertEqual(rtmpStalls(seconds: 60) { t in 113_664 - 4096 * (Int(t * 4) % 8) }, [])
        // Its window grew (the kernel tunes it), and stays there.
        XCTAssertEqual(rtmpStalls(seconds: 60) { t in t < 5 ? 65_536 : 131_072 }, [])
    }

    func testRTMPServerWhoseBufferIsFullIsStalled() {
        // nginx-rtmp frozen at 10 s and 6 Mb/s: its buffer fills at once, the window is 0, nothing more is acknowledged.
        XCTAssertEqual(rtmpStalls(seconds: 14, window: { t in t < 10 ? 156_672 : 0 }, acknowledging: { $0 < 10 }).first, 12.75)
    }

    /// nginx-rtmp reading all along over 300 ms each way with 2 % loss (by hand, docs/presets.md
    /// `reconnect.stall`): its TCP stack's acknowledgements and window, read every 0.25 s.
    /// From 2.75 s its window narrows for 4.3 s (it holds data out of order, waiting for a
    /// lost segment) while its stack acknowledges more, then opens again. Taken for a
    /// server that stopped reading, that was a stall at 5 s, twice in 20 minutes.
    private let lossyTrace: [(acked: Int, window: Int)] = [
        (5343695, 831488), (5363208, 831488), (5369236, 831488), (5374947, 831488), (5374947, 831488), (5374947, 831488),
        (5396196, 831488), (5402331, 831488), (5404907, 831488), (5404907, 831488), (5404907, 831488), (5427284, 812032),
        (5434040, 809984), (5440363, 806912), (5446376, 802816), (5452824, 800768), (5458881, 797696), (5465983, 792576),
        (5465983, 792576), (5465983, 792576), (5476250, 782336), (5476250, 782336), (5495109, 765952), (5500382, 765952),
        (5500382, 765952), (5500382, 765952), (5516191, 761856), (5516191, 761856), (5533009, 769024), (5533009, 769024),
    ]

    private func lossyStalls(recovering: Bool, limit: TimeInterval = 4) -> [Int] {
        var probe = RTMPProbe(limit: limit, now: t0)
        return lossyTrace.indices.filter { i in
            var reading = rtmp(lossyTrace[i].acked + 1000, queued: 1000)
            reading.window = lossyTrace[i].window
            reading.recovering = recovering
            return probe.observe(reading, produced: true, publishing: true, at: t0 + Double(i) * 0.25).stalled
        }
    }

    func testRTMPServerThatReadsOverALossyLinkIsNotStalledWhileLostDataIsRecovered() {
        XCTAssertEqual(lossyStalls(recovering: true), [], "a narrower window while lost data is recovered is no sign")
        XCTAssertEqual(lossyStalls(recovering: false), [24, 25, 26, 27], "the window alone: 4 s after it was last seen reading (2 s)")
        // Stopped there: its window closes and its stack acknowledges nothing more. Stalled, recovering or not.
        var probe = RTMPProbe(limit: 4, now: t0)
        let stalls = (1...40).filter { i in
            var reading = rtmp(min(i, 10) * 10_000 + 1000, queued: 1000)
            reading.window = max(0, 100_000 - i * 10_000)
            reading.recovering = true
            return probe.observe(reading, produced: true, publishing: true, at: t0 + Double(i) * 0.25).stalled
        }
        XCTAssertEqual(stalls.first, 26, "4 s after the last acknowledgement (2.5 s)")
    }

    func testRTMPServerOwnAcknowledgementsAreReading() {
        var probe = RTMPProbe(limit: 2, now: t0)
        let stalls = (1...20).filter { second in
            // Its window shrinks all along, but it acknowledges in RTMP every other second.
            var reading = rtmp(1000 * second, queued: 0, serverAcked: 400 * (second / 2))
            reading.window = 100_000 - 1000 * second
            return probe.observe(reading, produced: true, publishing: true, at: t0 + Double(second)).stalled
        }
        XCTAssertEqual(stalls, [])
    }

    func testRTMPNewConnectionCountsFromZero() {
        var probe = RTMPProbe(limit: 2, now: t0)
        _ = probe.observe(rtmp(9000, queued: 0), produced: true, publishing: true, at: t0 + 1)
        probe.restart(at: t0 + 5)
        XCTAssertNil(probe.acked)
        XCTAssertEqual(probe.commandBytes, 0)
        XCTAssertFalse(probe.observe(rtmp(100, queued: 100), produced: true, publishing: true, at: t0 + 6).stalled,
                       "the silence counts from the new connection")
        XCTAssertTrue(probe.observe(rtmp(200, queued: 200), produced: true, publishing: true, at: t0 + 8).stalled)
    }

    func testRTMPProducedIsMoreHandedOver() {
        var probe = RTMPProbe(limit: 2, now: t0)
        XCTAssertTrue(probe.produced(10))
        XCTAssertFalse(probe.produced(10))
        XCTAssertTrue(probe.produced(11))
    }

    private func srt(sent: Int64, acks: Int64) -> SRTStats {
        var s = SRTStats()
        s.packetsSent = sent
        s.acksReceived = acks
        return s
    }

    func testSRTCallerAcknowledgementsAndStall() {
        var probe = SRTCallerProbe(limit: 2, now: t0)
        XCTAssertEqual(probe.observe(srt(sent: 10, acks: 3), handed: 100, publishing: false, at: t0 + 1), LinkVerdict(acknowledged: true))
        XCTAssertEqual(probe.stats?.acksReceived, 3)
        XCTAssertEqual(probe.observe(srt(sent: 20, acks: 3), handed: 200, publishing: true, at: t0 + 2), LinkVerdict())
        XCTAssertEqual(probe.observe(srt(sent: 30, acks: 3), handed: 300, publishing: true, at: t0 + 3), LinkVerdict(stalled: true))
        // Nothing handed to the output: no stall, whatever the silence.
        XCTAssertEqual(probe.observe(srt(sent: 30, acks: 3), handed: 300, publishing: true, at: t0 + 9), LinkVerdict())
        probe.restart(at: t0 + 10)
        XCTAssertNil(probe.stats)
    }

    /// A listener that is gone: libsrt sends nothing more, so its counts stand still (as
    /// srtsink shows them while it reconnects on its own), or srtsink has no statistics at
    /// all. Data still handed to the output with nothing acknowledged is a stall either way.
    /// Before, only libsrt's own `packets_sent` counted as sending: neither stalled, ever.
    func testSRTCallerWhoseListenerIsGoneStallsWhileDataIsHanded() {
        var frozen = SRTCallerProbe(limit: 5, now: t0)
        XCTAssertTrue(frozen.observe(srt(sent: 300, acks: 190), handed: 1_000, publishing: true, at: t0 + 1).acknowledged)
        for second in 2...5 {
            XCTAssertEqual(frozen.observe(srt(sent: 343, acks: 190), handed: UInt64(second) * 1_000, publishing: true,
                                          at: t0 + Double(second)), LinkVerdict(), "second \(second)")
        }
        XCTAssertEqual(frozen.observe(srt(sent: 343, acks: 190), handed: 6_000, publishing: true, at: t0 + 6), LinkVerdict(stalled: true))
        XCTAssertEqual(frozen.stats?.acksReceived, 190, "status keeps the last counts")

        var vanished = SRTCallerProbe(limit: 5, now: t0)
        XCTAssertTrue(vanished.observe(srt(sent: 300, acks: 190), handed: 1_000, publishing: true, at: t0 + 1).acknowledged)
        XCTAssertFalse(vanished.observe(nil, handed: 2_000, publishing: true, at: t0 + 5).stalled)
        XCTAssertEqual(vanished.observe(nil, handed: 3_000, publishing: true, at: t0 + 6), LinkVerdict(stalled: true))
        XCTAssertEqual(vanished.stats?.acksReceived, 190)
    }

    func testSRTListenerCountsItsCallersAndNeverStalls() {
        var probe = SRTListenerProbe()
        XCTAssertEqual(probe.observe(callerAdded: true), LinkVerdict(acknowledged: true))
        XCTAssertEqual(probe.observe(callerAdded: true).acknowledged, true)
        XCTAssertEqual(probe.callers, 2)
        _ = probe.observe(callerAdded: false)
        XCTAssertEqual(probe.observe(callerAdded: false), LinkVerdict())
        XCTAssertEqual(probe.observe(callerAdded: false), LinkVerdict(), "never below none")
        XCTAssertEqual(probe.callers, 0)
    }

    func testDiskThatTakesNothingWhileDataWaitsStalls() {
        var probe = DiskProbe(limit: 2, now: t0)
        XCTAssertEqual(probe.observe(pushed: 100, taken: 100, publishing: true, at: t0 + 1), LinkVerdict(acknowledged: true))
        XCTAssertEqual(probe.observe(pushed: 200, taken: 100, publishing: true, at: t0 + 2), LinkVerdict())
        XCTAssertEqual(probe.observe(pushed: 300, taken: 100, publishing: true, at: t0 + 3), LinkVerdict(stalled: true))
        XCTAssertEqual(probe.observe(pushed: 300, taken: 150, publishing: true, at: t0 + 4), LinkVerdict(acknowledged: true))
    }

    /// An Icecast reading: `rendered` buffers, `taken` bytes, `queued` still in the socket (nil: no socket found).
    private func icecast(_ rendered: UInt64, _ taken: Int, queued: Int?) -> IcecastProbe.Reading {
        IcecastProbe.Reading(rendered: rendered, taken: taken, socketFound: queued != nil, unacknowledged: queued ?? 0)
    }

    func testIcecastConnectHasADeadlinePerStageAndALoginIsAcknowledged() {
        var probe = IcecastProbe(limit: 2, now: t0)
        // No socket for the TCP stage's deadline (no less than twice a sink's own 5 s): that stage failed.
        XCTAssertNil(probe.observe(icecast(0, 0, queued: nil), produced: true, connecting: true, publishing: false, at: t0 + 9).overdue)
        let overdue = probe.observe(icecast(0, 0, queued: nil), produced: true, connecting: true, publishing: false, at: t0 + 10).overdue
        XCTAssertEqual(overdue, "connect: no TCP connection to the server for 10s")
        probe.restart(at: t0 + 3)
        // A socket, and no answer to the login yet: not acknowledged, and in time until the limit.
        let waiting = probe.observe(icecast(0, 0, queued: 0), produced: true, connecting: true, publishing: false, at: t0 + 4)
        XCTAssertEqual(waiting.verdict, LinkVerdict())
        XCTAssertNil(waiting.overdue)
        var silent = probe
        XCTAssertEqual(silent.observe(icecast(0, 0, queued: 0), produced: true, connecting: true, publishing: false, at: t0 + 6).overdue,
                       "connect: the server acknowledged none of the stream for 2s")
        // A buffer rendered: the login was accepted.
        let in_ = probe.observe(icecast(1, 4000, queued: 1000), produced: true, connecting: true, publishing: false, at: t0 + 4.5)
        XCTAssertEqual(in_.verdict, LinkVerdict(acknowledged: true))
        XCTAssertEqual(probe.acked, 3000)
    }

    /// A login accepted on a socket the server closed at once (no longer established:
    /// not found) is no stream taken: still connecting, until the deadline. Before: acknowledged.
    func testIcecastLoginOnASocketTheServerClosedIsNotPublishing() {
        var probe = IcecastProbe(limit: 2, now: t0)
        let closed = probe.observe(icecast(1, 4000, queued: nil), produced: true, connecting: true, publishing: false, at: t0 + 1)
        XCTAssertEqual(closed.verdict, LinkVerdict())
        XCTAssertNil(closed.overdue)
        XCTAssertNil(probe.acked)
        XCTAssertEqual(probe.observe(icecast(1, 4000, queued: nil), produced: true, connecting: true, publishing: false, at: t0 + 3).overdue,
                       "connect: the server acknowledged none of the stream for 2s")
        // Nothing of the stream acknowledged yet on an open socket: not yet.
        var open = IcecastProbe(limit: 2, now: t0)
        XCTAssertEqual(open.observe(icecast(1, 4000, queued: 4000), produced: true, connecting: true, publishing: false, at: t0 + 1).verdict,
                       LinkVerdict())
        XCTAssertEqual(open.observe(icecast(2, 4400, queued: 400), produced: true, connecting: true, publishing: false, at: t0 + 1.5).verdict,
                       LinkVerdict(acknowledged: true))
    }

    func testIcecastServerThatAcknowledgesNothingStalls() {
        var probe = IcecastProbe(limit: 2, now: t0)
        _ = probe.observe(icecast(1, 1000, queued: 0), produced: true, connecting: false, publishing: true, at: t0 + 1)
        // From here the socket holds all that is taken.
        let stalls = (2...5).filter { second in
            probe.observe(icecast(UInt64(second), 1000 + second * 100, queued: second * 100 - 100), produced: true,
                          connecting: false, publishing: true, at: t0 + Double(second)).verdict.stalled
        }
        XCTAssertEqual(stalls, [4, 5])
        // Nothing produced (the run paused) is no stall.
        var idle = IcecastProbe(limit: 2, now: t0)
        _ = idle.observe(icecast(1, 1000, queued: 0), produced: true, connecting: false, publishing: true, at: t0 + 1)
        XCTAssertFalse(idle.observe(icecast(1, 1000, queued: 0), produced: false, connecting: false, publishing: true, at: t0 + 9).verdict.stalled)
    }

    /// When an Icecast output publishing since 1 s was called stalled, reading every
    /// 250 ms for `seconds`: 12 KB/s (96 kb/s) taken and all of it acknowledged by the
    /// server's TCP stack, its window at `window(t)`.
    private func icecastStalls(seconds: Double, window: (Double) -> Int?) -> [Double] {
        var probe = IcecastProbe(limit: 3, now: t0)
        _ = probe.observe(IcecastProbe.Reading(rendered: 1, taken: 12_000, socketFound: true, window: window(1)),
                          produced: true, connecting: false, publishing: true, at: t0 + 1)
        return stride(from: 1.25, through: seconds, by: 0.25).filter { t in
            let reading = IcecastProbe.Reading(rendered: UInt64(t * 40), taken: Int(t * 12_000), socketFound: true, window: window(t))
            return probe.observe(reading, produced: true, connecting: false, publishing: true, at: t0 + t).verdict.stalled
        }
    }

    /// icecast2 SIGSTOPped at 10 s: its kernel goes on acknowledging into its receive
    /// buffer (minutes at a radio bitrate), while the window it advertises shrinks by what
    /// arrives and never opens again. Stalled `reconnect.stall` after the last reading that
    /// saw it reading. Before, its acknowledgements alone: never stalled.
    func testIcecastServerThatStopsReadingIsStalledThoughItsKernelStillAcknowledges() {
        let frozen = icecastStalls(seconds: 20) { t in t <= 10 ? 65_536 : 65_536 - Int((t - 10) * 12_000) }
        XCTAssertEqual(frozen.first, 13.25, "3 s after the last reading that saw it reading (10.25 s, within the slack): \(frozen)")
        XCTAssertEqual(frozen.last, 20)
        XCTAssertEqual(icecastStalls(seconds: 20) { _ in nil }, [], "without the window, its TCP stack's word alone")
        // At a low bitrate its kernel grows the buffer as it fills: the window shrinks a KB
        // every 1.5 s, so it is stalled `reconnect.stall` after it is more than the slack below.
        let slow = icecastStalls(seconds: 30) { t in t <= 10 ? 65_536 : 65_536 - 1024 * Int((t - 10) / 1.5) }
        XCTAssertEqual(slow.first, 17.25 + 3, "more than 4 KB below from 17.5 s: \(slow)")
    }

    /// icecast2 reading on loopback: its window goes a KB down and up (what it has not
    /// read yet when its kernel acknowledges), and stays down for seconds at times.
    func testIcecastServerWhoseWindowWobblesWhileItReadsIsNeverStalled() {
        XCTAssertEqual(icecastStalls(seconds: 60) { t in Int(t / 4) % 2 == 0 ? 105_472 : 104_448 }, [])
        XCTAssertEqual(icecastStalls(seconds: 60) { t in t < 5 ? 105_472 : 105_472 - 1024 * (Int(t) % 3) }, [])
        // Its buffer was cut (memory pressure) once while it reads: the window is lower from
        // then on, and wobbles there.
        XCTAssertEqual(icecastStalls(seconds: 60) { t in t < 20 ? 131_072 : 98_304 - 1024 * (Int(t * 2) % 2) }, [])
    }

    func testIcecastServerThatReadsIsNeverStalled() {
        XCTAssertEqual(icecastStalls(seconds: 60) { _ in 65_536 }, [], "an open window that stays open")
        XCTAssertEqual(icecastStalls(seconds: 60) { t in 65_536 - 2048 * (Int(t * 4) % 4) }, [], "behind for a moment, caught up")
        XCTAssertEqual(icecastStalls(seconds: 60) { t in t < 5 ? 65_536 : 131_072 }, [], "its buffer grew, and stays there")
        // A new connection forgets the last one's window.
        var probe = IcecastProbe(limit: 3, now: t0)
        _ = probe.observe(IcecastProbe.Reading(rendered: 1, taken: 1000, socketFound: true, window: 131_072),
                          produced: true, connecting: false, publishing: true, at: t0 + 1)
        probe.restart(at: t0 + 2)
        XCTAssertEqual(probe.reads, ServerReads())
    }

    func testEachTargetGetsItsProbe() throws {
        func probe(_ url: String) throws -> LinkProbe {
            LinkProbe(target: try OutputURL(url).target, stall: 4, now: t0)
        }
        guard case .rtmp = try probe("rtmp://127.0.0.1:1935/live/k") else { return XCTFail("rtmp") }
        guard case .srtCaller = try probe("srt://127.0.0.1:9000") else { return XCTFail("srt caller") }
        guard case .srtListener = try probe("srt://:9000?mode=listener") else { return XCTFail("srt listener") }
        guard case .disk = try probe("/tmp/x.mp4") else { return XCTFail("file") }
        guard case .icecast = try probe("icecast://source:pw@127.0.0.1:8000/radio.mp3") else { return XCTFail("icecast") }
        XCTAssertEqual(try probe("rtmp://127.0.0.1:1935/live/k").stallLimit, 4)
        XCTAssertEqual(try probe("srt://:9000?mode=listener").callers, 0)
    }
}
