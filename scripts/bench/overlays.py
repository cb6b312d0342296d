"""The overlays job: job 1's file to an MP4 as fast as possible, 1280x720@30, with a logo, a
now-playing text and a clock drawn on it, against the same run without overlays (what they
cost per frame and in the job's CPU; docs/presets.md, overlays)."""

import os
import statistics
import sys

from media import FPS, check_output
from runner import progress, run_child


class OverlayJobs:
    def job_overlays(self):
        src = self.file_source()
        logo = os.path.join(self.tmp, "logo.png")
        if not os.path.exists(logo):
            run_child(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                       "color=c=0xE03020:s=256x128,format=rgba", "-frames:v", "1", logo], self.log("overlays-logo"))
        player = f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n"
        overlays = ("overlays:\n"
                    f"  - {{id: logo, image: \"{logo}\", position: top-right, margin: 20, width: 10%, opacity: 70%}}\n"
                    "  - {id: nowplaying, text: \"{player.main.title} — {player.main.artist}\", position: bottom-left,"
                    " font: \"Sans Bold 24\", color: \"#FFFFFF\", outline: \"#000000\"}\n"
                    "  - {id: clock, text: \"{clock:%H:%M:%S}\", position: top-left}\n")
        presets = {"mediapub, no overlays": self.preset("bench-plain", player),
                   "mediapub, logo + text + clock": self.preset("bench-overlays", player + overlays)}
        out = os.path.join(self.tmp, "overlays.mp4")
        rows = {k: [] for k in presets}
        for run in range(1, self.solo_runs + 1):
            for key, preset in presets.items():
                if os.path.exists(out):
                    os.remove(out)
                log = self.log(f"overlays-{'plain' if 'no' in key else 'drawn'}-run{run}")
                r = run_child(self.mediapub_argv(preset, "--output", out, "--no-realtime"), log,
                              timeout=20 * self.file_seconds + 120)
                check_output(out, self.file_seconds, log, f"overlays job {key}")
                rows[key].append(r)
                progress(f"overlays round {run}/{self.solo_runs} {key}: {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        med = self.table(f"overlays: job 1's {self.file_seconds} s source to MP4 as fast as possible, "
                         f"1280x720@{FPS}, median of {self.solo_runs} rounds", rows, ratios=False)
        plain, drawn = rows["mediapub, no overlays"], rows["mediapub, logo + text + clock"]
        frames = self.file_seconds * FPS
        extra = [(d.cpu - p.cpu) * 1000 / frames for d, p in zip(drawn, plain)]
        share = [(d.cpu - p.cpu) / d.cpu * 100 for d, p in zip(drawn, plain)]
        print(f"overlays' CPU per frame, median of the rounds: {statistics.median(extra):.3f} ms "
              f"({statistics.median(share):.1f} % of the job's CPU; rounds {min(extra):.3f}..{max(extra):.3f} ms); "
              f"rss {med['mediapub, logo + text + clock'][2] / med['mediapub, no overlays'][2]:.2f}x")
        sys.stdout.flush()
