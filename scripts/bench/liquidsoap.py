"""Jobs 7 and 8: mediapub beside liquidsoap, which a channel would otherwise run. liquidsoap
plays in realtime here, as a channel runs it (its clock follows the wall clock), so both
jobs are realtime for every tool. Its scripts are liq/file.liq and liq/bgm.liq; each
stops by itself (the file ends, or its output clock reaches the job's length), and a
child that outlives its bound is killed and fails the bench."""

import os

from media import FFMPEG_ENCODE, GST_AUDIO, GST_VIDEO, MEDIA, REPO, check_encoded, ssim_db
from runner import BenchError, print_log, progress, run_child

HERE = os.path.dirname(os.path.abspath(__file__))
FILE_LIQ = os.path.join(HERE, "liq", "file.liq")
BGM_LIQ = os.path.join(HERE, "liq", "bgm.liq")
# liquidsoap spends seconds parsing and type-checking its standard library before it plays.
STARTUP_ALLOWANCE = 120


class LiquidsoapJobs:
    """Mixed into Bench (jobs.py): uses its runs, seconds, logs, presets and table."""

    def alternate(self, job, commands, out, runs, seconds, source=None, ssim=None):
        """Runs commands ({tool: argv maker}) in turn, runs times, each writing out(tool): an
        MP4 of seconds, realtime, checked (check_encoded); with ssim, the first run's SSIM
        of each tool's output against source. Returns {tool: [Result]}."""
        rows = {t: [] for t in commands}
        for run in range(1, runs + 1):
            for tool, command in commands.items():
                if os.path.exists(out(tool)):
                    os.remove(out(tool))
                log = self.log(f"job{job}-{tool}-run{run}")
                r = run_child(command(), log, timeout=3 * seconds + STARTUP_ALLOWANCE)
                if r.wall < 0.8 * seconds:
                    print_log(log)
                    raise BenchError(f"job {job} {tool}: {seconds} s of realtime output took only {r.wall:.1f} s: "
                                     f"not paced; log: {log}")
                check_encoded(out(tool), seconds, log, f"job {job} {tool}")
                if ssim is not None and tool not in ssim:
                    ssim[tool] = ssim_db(out(tool), source, log)
                rows[tool].append(r)
                progress(f"job {job} run {run}/{runs} {tool}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        return rows

    def liquidsoap_startup(self, script):
        """liquidsoap --check: its startup alone (the standard library and the script parsed
        and type-checked, nothing played), once; it is part of every liquidsoap run."""
        r = run_child(["liquidsoap", "--check", script], self.log(f"liquidsoap-check-{os.path.basename(script)}"),
                      timeout=STARTUP_ALLOWANCE)
        print(f"liquidsoap's startup alone (liquidsoap --check {os.path.relpath(script, REPO)}, one run): "
              f"{r.wall:.2f} s wall, {r.cpu:.2f} s CPU, {r.rss:.1f} MiB peak RSS; its row includes it", flush=True)

    # -- job 7 ----------------------------------------------------------------------

    def job_file_realtime(self):
        src = self.file_source()
        seconds = self.file_seconds
        preset = self.preset("bench-file", f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n")
        out = lambda tool: os.path.join(self.tmp, f"file-rt-{tool}.mp4")
        # gst-launch paces with clocksync after the decoder (a file sink does not wait for the clock).
        gst_paced = lambda branch: f"d. ! clocksync ! {branch}"
        commands = {
            "mediapub": lambda: self.mediapub_argv(preset, "--output", out("mediapub"), "--realtime"),
            "ffmpeg": lambda: ["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-y", "-re", "-i", src,
                               *FFMPEG_ENCODE, out("ffmpeg")],
            "gst-launch": lambda: ["gst-launch-1.0", "-e", "uridecodebin", f"uri=file://{src}", "name=d",
                                   *gst_paced(f"{GST_VIDEO} ! mp4mux name=m ! filesink location={out('gst-launch')}").split(),
                                   *gst_paced(f"{GST_AUDIO} ! m.").split()],
            "liquidsoap": lambda: ["liquidsoap", FILE_LIQ, "--", src, out("liquidsoap")],
        }
        ssim = {}
        rows = self.alternate("7", commands, out, self.runs, seconds, source=src, ssim=ssim)
        self.table(f"7. the job 1 file -> MP4 in realtime, beside liquidsoap (liq/file.liq): {seconds} s "
                   f"1280x720@30 H.264/AAC source, median of {self.runs} alternating runs; SSIM of the first "
                   "run's output against the source", rows, ssim)
        self.liquidsoap_startup(FILE_LIQ)

    # -- job 8 ----------------------------------------------------------------------

    def job_bgm_liquidsoap(self):
        seconds = self.seconds
        out = lambda tool: os.path.join(self.tmp, f"bgm-{tool}.mp4")
        commands = {
            "mediapub": lambda: self.mediapub_argv(os.path.join(REPO, "presets", "bgm.yaml"),
                                                   "--output", out("mediapub"), "--realtime",
                                                   "--duration", f"{seconds}s"),
            "liquidsoap": lambda: ["liquidsoap", BGM_LIQ, "--", str(seconds), MEDIA, out("liquidsoap")],
        }
        rows = self.alternate("8", commands, out, self.solo_runs, seconds)
        self.table(f"8. presets/bgm.yaml (video loop + music playlist) realtime {seconds} s to an MP4, beside "
                   f"liquidsoap (liq/bgm.liq): median of {self.solo_runs} alternating runs", rows)
        self.liquidsoap_startup(BGM_LIQ)
