"""Job 9: a live feed on air (docs/presets.md, live), beside the same job playing a file.

Each round runs mediapub twice back to back on the job 2 source, realtime for
BENCH_SECONDS to an MP4 at the bench's settings: once playing the file alone, once with
a `live:` SRT listener into which ffmpeg pushes that same file (1280x720@30 H.264/AAC,
copied, not encoded again) from the listener's first `live.state waiting` to the end of
the run. The feed is on air from `takeover_after` of delivery to the end, and the
programme plays on under it (`programme: continue`), so the second run decodes the file
twice: its CPU beyond the first is the feed's own cost (its decoding, queue and switch).
The ratio is taken within each round and the rounds' median reported, as job 6 does."""

import os
import socket
import statistics
import time

from media import check_encoded
from runner import BenchError, Service, free_port, print_log, progress, run_child


class LiveJobs:
    """Mixed into Bench (jobs.py): uses its runs, seconds, logs, presets, sources and table."""

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
        keys = ("mediapub, file", "mediapub, file + live feed")
        rows = {k: [] for k in keys}
        on_air = []
        for run in range(1, self.solo_runs + 1):
            for key, preset, tag in zip(keys, (file_only, with_feed), ("file", "feed")):
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
                        sender.append(Service([
                            "ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-re", "-stream_loop", "-1",
                            "-i", src, "-t", str(seconds + 10), "-c", "copy", "-f", "mpegts",
                            f"srt://127.0.0.1:{port}?mode=caller&latency=200"], self.log(f"job9-sender-run{run}")))

                start = time.monotonic()
                try:
                    r = run_child(self.mediapub_argv(preset, "--output", out, "--realtime", "--duration", f"{seconds}s",
                                                     "--events", "-"),
                                  log, on_line=on_line, timeout=3 * seconds + 60)
                finally:
                    for s in sender:
                        s.stop()
                if r.wall < 0.8 * seconds:
                    print_log(log)
                    raise BenchError(f"job 9 {tag}: {seconds} s of realtime output took only {r.wall:.1f} s: not paced; log: {log}")
                check_encoded(out, seconds, log, f"job 9 {key}")
                if tag == "feed":
                    if not sender or "on_air" not in seen or "released" in seen:
                        print_log(log)
                        if sender:
                            print_log(sender[0].log)
                        raise BenchError(f"job 9: the feed was not on air to the end of the run "
                                         f"(live.state seen: {sorted(seen)}); log: {log}")
                    # on air from its event to the end of the run
                    on_air.append(start + r.wall - seen["on_air"][0])
                rows[key].append(r)
                progress(f"job 9 round {run}/{self.solo_runs} {tag}: {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        self.table(f"9. a live SRT feed on air: the job 2 source realtime {seconds} s to an MP4, alone and with "
                   f"ffmpeg pushing the same file into the `live:` listener (on air {statistics.median(on_air):.1f} s, "
                   f"median): median of {self.solo_runs} rounds", rows, ratios=False)
        ratios = [b.cpu / a.cpu for a, b in zip(rows[keys[0]], rows[keys[1]])]
        print(f"with the feed / without, CPU, median of the rounds' ratios: {statistics.median(ratios):.3f}x "
              f"(rounds {min(ratios):.3f}..{max(ratios):.3f}); the feed's decoding is a second decode of the "
              "same file, so about what the file's own decoding costs", flush=True)
