"""Job 9: a live feed on air (docs/presets.md, live), against its own decoding.

Each round runs mediapub twice back to back (the file first in odd rounds, the feed in
even ones) on the job 2 source, realtime for BENCH_SECONDS to an MP4 at the bench's
settings: once playing the file alone, once with a `live:` SRT listener into which
ffmpeg pushes that same file (1280x720@30 H.264/AAC, copied, not encoded again) from
the listener's first `live.state waiting` to the end of the run. The feed is on air from `takeover_after` of delivery to the end, and the
programme plays on under it (`programme: continue`), so the second run decodes the file
twice: its CPU beyond the first is what the feed costs.

A third run in each round is the feed's own decoding alone: gst-launch listening on SRT
as the feed does (srtsrc, latency 200 ms, tsdemux, h264parse and avdec_h264 with slice
threads as mediapub's decoders have, aacparse and avdec_aac, each into a fakesink synced
to the clock), fed by the same ffmpeg sender started as soon as it listens and stopped
(SIGINT) after as many seconds as the sender fed mediapub in that round. The job prints
the feed's extra CPU (with the feed less without), that decoding's CPU and the ratio of
the two, each the median of the rounds (the ratio of each round's own pair) with their
range, and the verdict against the budget: the feed costs at most 5 % more than its
own decoding. Threads are sampled (as in job 6): the same extra outside the encoders'
threads (whose run-to-run drift is most of the noise in the extra), gst-launch's own
thread (its start, plugins loaded: a part of the decoding alone that the feed shares
with the programme in mediapub) and mediapub's threads that grew with the feed are
printed below."""

import os
import re
import signal
import socket
import statistics
import threading
import time

from media import check_encoded
from runner import BenchError, Service, free_port, print_log, progress, run_child, udp_bound, wait_until

# The feed's CPU beyond the same job without it, over its own decoding's.
BUDGET = 1.05
# The encoders' threads, by name as ThreadTimes gives them (their appsrcs, Publisher/Encoder.swift).
ENCODER_THREADS = ("video-src:src", "audio-src:src")


class LiveJobs:
    """Mixed into Bench (jobs.py): uses its runs, seconds, logs, presets, sources and table."""

    def live_sender(self, src, port, seconds, name):
        """ffmpeg pushing src, copied, into the SRT listener on port, for longer than it is needed."""
        return Service(["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-re", "-stream_loop", "-1",
                        "-i", src, "-t", str(seconds + 10), "-c", "copy", "-f", "mpegts",
                        f"srt://127.0.0.1:{port}?mode=caller&latency=200"], self.log(name))

    def job_live(self):
        src = self.realtime_source()
        seconds = self.seconds
        port = free_port(socket.SOCK_DGRAM)
        out = os.path.join(self.tmp, "live.mp4")
        players = f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n    repeat: true\n"
        file_only = self.preset("bench-live-off", players)
        with_feed = self.preset("bench-live-on", players + f"""live:
  source: "srt://:{port}?mode=listener&latency=200"
  takeover_after: 500ms
  release_after: 3s
  programme: continue
""")
        keys = ("mediapub, file", "mediapub, file + live feed", "gst-launch, the feed's decoding")
        rows = {k: [] for k in keys}
        on_air = []
        for run in range(1, self.solo_runs + 1):
            fed = None  # seconds the sender fed mediapub in this round
            pair = list(zip(keys[:2], (file_only, with_feed), ("file", "feed")))
            # Each round in the other order: a machine whose load drifts favours neither run.
            for key, preset, tag in pair if run % 2 else pair[::-1]:
                if os.path.exists(out):
                    os.remove(out)
                log = self.log(f"job9-{tag}-run{run}")
                sender, seen = [], {}

                def on_line(t, line, sender=sender, seen=seen, run=run):
                    if b'"live.state"' not in line:
                        return
                    for state in (b"waiting", b"on_air", b"released"):
                        if b'"' + state + b'"' in line:
                            seen.setdefault(state.decode(), []).append(t)
                    if b'"waiting"' in line and not sender:
                        sender.append((self.live_sender(src, port, seconds, f"job9-sender-run{run}"), time.monotonic()))

                start = time.monotonic()
                try:
                    r = run_child(self.mediapub_argv(preset, "--output", out, "--realtime", "--duration", f"{seconds}s",
                                                     "--events", "-"),
                                  log, on_line=on_line, timeout=3 * seconds + 60, threads=True)
                finally:
                    for s, _ in sender:
                        s.stop()
                if r.wall < 0.8 * seconds:
                    print_log(log)
                    raise BenchError(f"job 9 {tag}: {seconds} s of realtime output took only {r.wall:.1f} s: not paced; log: {log}")
                check_encoded(out, seconds, log, f"job 9 {key}")
                if tag == "feed":
                    if not sender or "on_air" not in seen or "released" in seen:
                        print_log(log)
                        if sender:
                            print_log(sender[0][0].log)
                        raise BenchError(f"job 9: the feed was not on air to the end of the run "
                                         f"(live.state seen: {sorted(seen)}); log: {log}")
                    # on air from its event to the end of the run; fed from the sender's start
                    on_air.append(start + r.wall - seen["on_air"][0])
                    fed = start + r.wall - sender[0][1]
                rows[key].append(r)
                progress(f"job 9 round {run}/{self.solo_runs} {tag}: {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
            r = self.feed_decoding(src, fed, run)
            rows[keys[2]].append(r)
            progress(f"job 9 round {run}/{self.solo_runs} decoding alone ({fed:.1f} s fed): {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        self.table(f"9. a live SRT feed on air: the job 2 source realtime {seconds} s to an MP4, alone and with "
                   f"ffmpeg pushing the same file into the `live:` listener (on air {statistics.median(on_air):.1f} s, "
                   f"median), and that feed's decoding alone in gst-launch: median of {self.solo_runs} rounds",
                   rows, ratios=False)
        self.live_verdict(rows, keys)

    def feed_decoding(self, src, seconds, run):
        """The feed's own decoding: gst-launch receiving the same sender as the feed does, for `seconds`
        from the sender's start; its log is checked for both decoders' caps (it decoded what was sent)."""
        port = free_port(socket.SOCK_DGRAM)
        argv = ["gst-launch-1.0", "-v", "srtsrc", f"uri=srt://:{port}?mode=listener&latency=200", "!", "tsdemux", "name=d",
                "d.", "!", "queue", "!", "h264parse", "!", "avdec_h264", "thread-type=slice", "!", "fakesink", "sync=true",
                "d.", "!", "queue", "!", "aacparse", "!", "avdec_aac", "!", "fakesink", "sync=true"]
        log = self.log(f"job9-decoding-run{run}")
        sender, timer = [], []

        def started(pid):
            wait_until(lambda: udp_bound(port), 10, "gst-launch to listen on SRT")
            sender.append(self.live_sender(src, port, seconds, f"job9-decoding-sender-run{run}"))
            # gst-launch stops cleanly on SIGINT (exit 0) once it receives.
            timer.append(threading.Timer(seconds, os.kill, (pid, signal.SIGINT)))
            timer[0].start()

        try:
            r = run_child(argv, log, timeout=seconds + 40, started=started, threads=True)
        finally:
            for t in timer:
                t.cancel()
            for s in sender:
                s.stop()
        with open(log, errors="replace") as f:
            text = f.read()
        decoded = [re.search(name + r"[^\n]*src: caps = " + caps, text)
                   for name, caps in (("avdec_h264", r"video/x-raw[^\n]*width=\(int\)1280"), ("avdec_aac", "audio/x-raw"))]
        if not all(decoded):
            print_log(log)
            raise BenchError(f"job 9: gst-launch decoded no {'picture' if not decoded[0] else 'sound'} from the sender; log: {log}")
        return r

    def live_verdict(self, rows, keys):
        file_only, with_feed, decoding = (rows[k] for k in keys)
        extra = [b.cpu - a.cpu for a, b in zip(file_only, with_feed)]
        alone = [d.cpu for d in decoding]
        ratios = [e / d for e, d in zip(extra, alone)]
        span = lambda xs, f, unit: (f"median {f.format(statistics.median(xs))}{unit} "
                                    f"(rounds {f.format(min(xs))}..{f.format(max(xs))}{unit})")
        ratio = statistics.median(ratios)
        print(f"the feed's extra CPU (file + live feed, less file): {span(extra, '{:.2f}', ' s')}; its decoding alone "
              f"(gst-launch): {span(alone, '{:.2f}', ' s')}; extra / decoding: {span(ratios, '{:.3f}', 'x')}: "
              + (f"within the {BUDGET:.2f} budget" if ratio <= BUDGET else f"over the {BUDGET:.2f} budget"))
        # The encoders' threads (x264 and AAC, in their appsrcs' threads) code as many frames in both runs:
        # what they differ by is mostly their drift from run to run, seconds of CPU against a feed's
        # two or so. The extra outside them is the feed's own threads and the timeline's share.
        encoders = lambda r: sum(r.threads.get(n, 0) for n in ENCODER_THREADS)
        outside = [e - (encoders(b) - encoders(a)) for e, a, b in zip(extra, file_only, with_feed)]
        print(f"outside the encoders' threads ({', '.join(ENCODER_THREADS)}): the extra {span(outside, '{:.2f}', ' s')}; "
              f"over the decoding alone: {span([o / d for o, d in zip(outside, alone)], '{:.3f}', 'x')}")
        # gst-launch's own thread is mostly its start (the plugins loaded, libav's among them), which the
        # feed shares with the programme in mediapub: a part of the decoding alone the feed never pays.
        start = [sum(v for n, v in d.threads.items() if n.startswith("gst-launch")) for d in decoding]
        print(f"of the decoding alone, gst-launch's own thread (its start): {span(start, '{:.2f}', ' s')}")
        # Where the extra goes: mediapub's threads by name, median over the rounds, most grown first
        # (the feed's own: libsrt's, its source and decoding; the encoder's drift is the noise).
        names = {n for r in file_only + with_feed for n in r.threads}
        med_t = lambda rs, n: statistics.median(r.threads.get(n, 0) for r in rs)
        grown = sorted(names, key=lambda n: med_t(file_only, n) - med_t(with_feed, n))
        print("mediapub threads, CPU s (median of the rounds), file -> file + live feed: " + ", ".join(
            f"{n} {med_t(file_only, n):.2f}->{med_t(with_feed, n):.2f}" for n in grown
            if max(med_t(file_only, n), med_t(with_feed, n)) >= 0.02), flush=True)
