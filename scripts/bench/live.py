"""Job 9: a live SRT feed on air (docs/presets.md, live) against the same job playing a
file. ffmpeg sends the job 2 source, copied without re-encoding and looped, to mediapub's
SRT listener as MPEG-TS; mediapub takes it on air at once, its programme (the same file)
paused, so the two runs decode one 1280x720@30 H.264/AAC stream each and encode the
same: what the feed costs beyond the file is its own (the network source, the demuxer,
its jitter buffer). Both run realtime to null:// for BENCH_SECONDS, in rounds (file,
feed), and the rounds' median CPU ratio feed/file is printed. The sender's CPU is not
counted; a feed that never went on air, or left it, fails the bench."""

import os
import socket
import statistics
import sys

from runner import BenchError, Service, free_port, print_log, progress, run_child


class LiveJobs:
    """Mixed into Bench (jobs.py): uses its runs, seconds, logs, presets and table."""

    def job_live(self):
        src = self.realtime_source()
        port = free_port(socket.SOCK_DGRAM)
        player = f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n"
        file_preset = self.preset("bench-live-file", player)
        feed_preset = self.preset("bench-live-feed", player + f"live:\n  source: \"srt://:{port}?mode=listener\"\n"
                                  "  takeover_after: 0s\n  release_after: 5s\n  programme: pause\n")
        run_args = ["--output", "null://", "--realtime", "--duration", f"{self.seconds}s", "--events", "-"]
        keys = ("mediapub, the file", "mediapub, a live SRT feed on air")
        rows = {k: [] for k in keys}
        for run in range(1, self.solo_runs + 1):
            log = self.log(f"job9-file-run{run}")
            r = run_child(self.mediapub_argv(file_preset, *run_args), log, on_line=lambda t, line: None,
                          timeout=3 * self.seconds + 60)
            if r.wall < 0.8 * self.seconds:
                print_log(log)
                raise BenchError(f"job 9 file: {self.seconds} s of realtime output took only {r.wall:.1f} s; log: {log}")
            rows[keys[0]].append(r)
            progress(f"job 9 round {run}/{self.solo_runs} file: {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")

            log = self.log(f"job9-feed-run{run}")
            senders, states = [], []

            def on_line(t, line, senders=senders, states=states, log=log):
                # The listener is up once the output publishes: the sender starts then.
                if b'"output.state"' in line and b'"publishing"' in line and not senders:
                    senders.append(Service(["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-v", "error", "-re",
                                            "-stream_loop", "-1", "-i", src, "-c", "copy", "-f", "mpegts",
                                            f"srt://127.0.0.1:{port}?mode=caller"], self.log(f"job9-sender-run{run}")))
                if b'"live.state"' in line:
                    for state in ("on_air", "released"):
                        if f'"state":"{state}"'.encode() in line:
                            states.append(state)

            try:
                r = run_child(self.mediapub_argv(feed_preset, *run_args), log, on_line=on_line,
                              timeout=3 * self.seconds + 60)
            finally:
                for s in senders:
                    s.stop()
            if states != ["on_air"]:
                print_log(log)
                raise BenchError(f"job 9 feed: the feed was {states or 'never on air'} (on_air once, never released, "
                                 f"expected); log: {log}")
            rows[keys[1]].append(r)
            progress(f"job 9 round {run}/{self.solo_runs} feed: {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        self.table(f"9. a live SRT feed on air (the job 2 source, sent by ffmpeg -c copy) against the same source "
                   f"played as a file, realtime {self.seconds} s to null://: median of {self.solo_runs} rounds",
                   rows, ratios=False)
        ratios = [f.cpu / p.cpu for f, p in zip(rows[keys[1]], rows[keys[0]])]
        print(f"feed / file, CPU, median of the rounds' ratios: {statistics.median(ratios):.3f}x "
              f"(rounds {min(ratios):.3f}..{max(ratios):.3f})")
        sys.stdout.flush()
