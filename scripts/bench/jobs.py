"""The jobs: each runs the tools side by side on one job and prints its table (see bench.py)."""

import os
import socket
import statistics
import subprocess
import sys
import time

from media import (AKBPS, FFMPEG_ENCODE, FPS, GST_AUDIO, GST_VIDEO, KBPS, MEDIA, REPO, TOOLS,
                   check_output, make_source, ssim_db)
from liquidsoap import LiquidsoapJobs
from overlays import OverlayJobs
from http_job import HTTPJobs
from live import LiveJobs
from relay import RTMPProbe, start_nginx
from runner import BenchError, Service, env_int, free_port, print_log, progress, run_child, udp_bound, wait_until


JOBS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "overlays", "http", "mem"]


class Bench(LiquidsoapJobs, LiveJobs, OverlayJobs, HTTPJobs):
    def __init__(self, mediapub, tmp):
        self.mediapub = os.path.abspath(mediapub)
        self.tmp = tmp
        self.logs = os.path.join(tmp, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.seconds = env_int("BENCH_SECONDS", 60)
        self.runs = env_int("BENCH_RUNS", 5)
        self.solo_runs = env_int("BENCH_SOLO_RUNS", min(3, self.runs))
        self.file_seconds = env_int("BENCH_FILE_SECONDS", 20)
        jobs = os.environ.get("BENCH_JOBS", "") or ",".join(JOBS)
        self.jobs = {j.strip() for j in jobs.split(",") if j.strip()}
        unknown = self.jobs - set(JOBS)
        if unknown:
            raise BenchError(f"BENCH_JOBS: unknown job {', '.join(sorted(unknown))} (jobs: {','.join(JOBS)})")
        self.services = []
        self.nginx = self.probe = None
        self.counter = 0

    def log(self, name):
        self.counter += 1
        return os.path.join(self.logs, f"{self.counter:03d}-{name}.log")

    def close(self):
        if self.probe:
            self.probe.close()
        for s in self.services:
            s.stop()

    def server(self):
        if self.nginx is None:
            self.nginx = start_nginx(self.tmp)
            self.services.append(self.nginx)
            self.probe = RTMPProbe(self.nginx.port)
        return f"rtmp://127.0.0.1:{self.probe.port}/live"

    def srt_listener(self, port, received, name):
        """srt-live-transmit listening on port, writing what it receives to received."""
        srt = Service(["srt-live-transmit", "-q", f"srt://:{port}?mode=listener", "file://con"],
                      self.log(name), stdout=received)
        self.services.append(srt)
        wait_until(lambda: udp_bound(port) or not srt.alive(), 10, "srt-live-transmit to listen")
        if not srt.alive():
            print_log(srt.log)
            raise BenchError("srt-live-transmit did not start")
        return srt

    def preset(self, name, body):
        path = os.path.join(self.tmp, f"{name}.yaml")
        with open(path, "w") as f:
            f.write(f"""name: {name}
video:
  size: 1280x720
  fps: {FPS}
  bitrate: {KBPS}k
  keyframe_interval: 2s
  encoder: x264
  encoder_preset: veryfast
audio:
  sample_rate: 48000
  channels: 2
  bitrate: {AKBPS}k
""" + body)
        return path

    def mediapub_argv(self, preset, *args):
        name = os.path.splitext(os.path.basename(preset))[0]
        return [self.mediapub, "--preset", preset, "--control", os.path.join(self.tmp, f"{name}.sock"), *args]

    # -- reporting ------------------------------------------------------------------

    @staticmethod
    def table(title, rows, ssim=None, ratios=True):
        """rows: {tool: [Result]}; ssim: {tool: dB} for jobs with a file output."""
        print(f"\n== {title} ==")
        head = f"{'tool':<32} {'wall s':>8} {'CPU s':>8} {'peak RSS MiB':>13}"
        if ssim is not None:
            head += f" {'SSIM dB':>8}"
        print(head)
        med = {}
        for tool, results in rows.items():
            med[tool] = (statistics.median(r.wall for r in results),
                         statistics.median(r.cpu for r in results),
                         statistics.median(r.rss for r in results))
            line = f"{tool:<32} {med[tool][0]:8.2f} {med[tool][1]:8.2f} {med[tool][2]:13.1f}"
            if ssim is not None:
                line += f" {ssim[tool]:8.2f}" if tool in ssim else f" {'-':>8}"
            print(line)
        if ratios:
            mediapub = next(iter(rows))
            for other in ("ffmpeg", "gst-launch", "liquidsoap"):
                if other in med:
                    a, b = med[mediapub], med[other]
                    # liquidsoap's wall time holds its startup (below the table), not the job's.
                    wall = "" if other == "liquidsoap" else f"wall {a[0] / b[0]:.2f}x "
                    line = f"mediapub/{other}: {wall}cpu {a[1] / b[1]:.2f}x rss {a[2] / b[2]:.2f}x"
                    if ssim and mediapub in ssim and other in ssim:
                        line += f" ssim {round(ssim[mediapub] - ssim[other], 2) + 0.0:+.2f} dB"
                    print(line)
        sys.stdout.flush()
        return med

    # -- job 1 ----------------------------------------------------------------------

    def job_file(self):
        src = self.file_source()
        preset = self.preset("bench-file", f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n")
        out = lambda tool: os.path.join(self.tmp, f"file-{tool}.mp4")
        commands = {
            "mediapub": lambda: self.mediapub_argv(preset, "--output", out("mediapub"), "--no-realtime"),
            "ffmpeg": lambda: ["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-y", "-i", src,
                               *FFMPEG_ENCODE, out("ffmpeg")],
            "gst-launch": lambda: ["gst-launch-1.0", "-e", "uridecodebin", f"uri=file://{src}", "name=d",
                                   *f"d. ! {GST_VIDEO} ! mp4mux name=m ! filesink location={out('gst-launch')}".split(),
                                   *f"d. ! {GST_AUDIO} ! m.".split()],
        }
        rows = {t: [] for t in TOOLS}
        ssim = {}
        for run in range(1, self.runs + 1):
            for tool in TOOLS:
                if os.path.exists(out(tool)):
                    os.remove(out(tool))
                log = self.log(f"job1-{tool}-run{run}")
                r = run_child(commands[tool](), log, timeout=20 * self.file_seconds + 120)
                check_output(out(tool), self.file_seconds, log, f"job 1 {tool}")
                if tool not in ssim:  # x264 is deterministic: the first run's output stands for all
                    ssim[tool] = ssim_db(out(tool), src, log)
                rows[tool].append(r)
                progress(f"job 1 run {run}/{self.runs} {tool}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        self.table(f"1. file -> MP4 as fast as possible: {self.file_seconds} s 1280x720@30 H.264/AAC source, "
                   f"median of {self.runs} alternating runs; SSIM of the first run's output against the source",
                   rows, ssim)

    def source(self, name, seconds, jobs):
        """A generated source (make_source) of seconds, made once for the jobs that play it."""
        src = os.path.join(self.tmp, f"{name}.mp4")
        if not os.path.exists(src):
            progress(f"making a {seconds} s 1280x720@30 H.264/AAC source for {jobs}")
            make_source(src, seconds, self.log(f"{name}-source"))
        return src

    def file_source(self):
        return self.source("src", self.file_seconds, "jobs 1 and 7")

    # -- jobs 2 and 5 -----------------------------------------------------------------

    def realtime_source(self):
        return self.source("rt", self.seconds, "the realtime jobs")

    def check_rtmp(self, what, log, wall):
        video, audio = self.probe.frames()
        expected = self.seconds * FPS
        if video < 0.9 * expected or audio < 0.9 * self.seconds * 48000 / 1024:
            print_log(log)
            print_log(self.nginx.error_log, 30)
            raise BenchError(f"{what}: the RTMP server got {video} video frames (expected {expected}) "
                             f"and {audio} AAC frames; log: {log}")
        if wall < 0.8 * self.seconds:
            print_log(log)
            raise BenchError(f"{what}: {self.seconds} s of realtime output took only {wall:.1f} s: not paced; log: {log}")

    def job_rtmp(self):
        src = self.realtime_source()
        base = self.server()
        preset = self.preset("bench-rtmp", f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n")
        commands = {
            "mediapub": lambda: self.mediapub_argv(preset, "--output", f"{base}/mediapub", "--events", "-"),
            "ffmpeg": lambda: ["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-re", "-i", src,
                               *FFMPEG_ENCODE, "-f", "flv", f"{base}/ffmpeg"],
            "gst-launch": lambda: ["gst-launch-1.0", "-e", "uridecodebin", f"uri=file://{src}", "name=d",
                                   *f"d. ! {GST_VIDEO} ! flvmux name=m streamable=true".split(),
                                   "!", "rtmp2sink", f"location={base}/gst-launch", "sync=true",
                                   *f"d. ! {GST_AUDIO} ! m.".split()],
        }
        rows = {t: [] for t in TOOLS}
        first = {t: {"connect": [], "media": [], "video": [], "events": []} for t in TOOLS}
        for run in range(1, self.runs + 1):
            for tool in TOOLS:
                log = self.log(f"job2-{tool}-run{run}")
                self.probe.reset()
                published = []

                def on_line(t, line, published=published):
                    if b'"output.state"' in line and b'"publishing"' in line and not published:
                        published.append(t)

                start = time.monotonic()
                r = run_child(commands[tool](), log, on_line=on_line if tool == "mediapub" else None,
                              timeout=3 * self.seconds + 60)
                self.check_rtmp(f"job 2 {tool}", log, r.wall)
                connected, first_media, first_video, _ = self.probe.snapshot()
                first[tool]["connect"].append(connected - start)
                first[tool]["media"].append(first_media - start)
                if first_video is not None:
                    first[tool]["video"].append(first_video - start)
                if published:
                    first[tool]["events"].append(published[0] - start)
                rows[tool].append(r)
                progress(f"job 2 run {run}/{self.runs} {tool}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, "
                         f"{r.rss:.0f} MiB, first frame at the server {1000 * (first_media - start):.0f} ms")
        if "2" in self.jobs:
            self.table(f"2. realtime {self.seconds} s to a local nginx-rtmp: "
                       f"median of {self.runs} alternating runs (wall is {self.seconds} s by construction)", rows)
        if "5" in self.jobs:
            self.first_packet_table(first)

    def first_packet_table(self, first):
        print(f"\n== 5. start to first packet at the RTMP server (the job 2 runs, median of {self.runs}) ==")
        print("measured by a TCP relay in front of nginx-rtmp that reads the RTMP chunk stream; from just")
        print("before the process is started to: the relay accepting its connection (connect), the first")
        print("coded audio or video frame, codec headers not counted (first frame), the first coded video")
        print("frame (first video); and for mediapub its own view, the first `output.state publishing` on")
        print("--events - (events ms), which waits for the server to acknowledge data")
        print(f"{'tool':<32} {'connect ms':>11} {'first frame ms':>15} {'first video ms':>15} {'events ms':>10}")
        med = lambda xs: f"{1000 * statistics.median(xs):.0f}" if xs else "-"
        for tool in TOOLS:
            f = first[tool]
            print(f"{tool:<32} {med(f['connect']):>11} {med(f['media']):>15} {med(f['video']):>15} {med(f['events']):>10}")
        for other in ("ffmpeg", "gst-launch"):
            a, b = statistics.median(first["mediapub"]["media"]), statistics.median(first[other]["media"])
            print(f"mediapub/{other}: first frame {a / b:.2f}x")
        sys.stdout.flush()

    # -- job 3 ----------------------------------------------------------------------

    # presets/bgm.yaml as it is, then with a feature on (--set) whose CPU cost is budgeted
    # against it: the music playlist crossfading (its items are about 30 s: a fade each),
    # audio.loudness (each item measured ahead, the output metered), and both.
    BGM_VARIANTS = {
        "mediapub (bgm.yaml)": [],
        "mediapub (bgm, crossfade: 3s)": ["--set", "players.music.playlist.crossfade=3s"],
        "mediapub (bgm, loudness)": ["--set", "audio.loudness={}"],
        "mediapub (bgm, crossfade, loudness)": ["--set", "players.music.playlist.crossfade=3s", "--set", "audio.loudness={}"],
    }

    def job_bgm(self):
        base = self.server()
        out = os.path.join(self.tmp, "bgm.mp4")
        rows = {name: [] for name in self.BGM_VARIANTS}
        for run in range(1, self.solo_runs + 1):
            for variant, (name, extra) in enumerate(self.BGM_VARIANTS.items()):  # alternating: drifts hit each alike
                if os.path.exists(out):
                    os.remove(out)
                log = self.log(f"job3-bgm-run{run}-variant{variant}")
                self.probe.reset()
                argv = self.mediapub_argv(os.path.join(REPO, "presets", "bgm.yaml"), "--output-env", "RTMP_URL",
                                          "--output", out, "--duration", f"{self.seconds}s", *extra)
                r = run_child(argv, log, env={"RTMP_URL": f"{base}/bgm"}, timeout=3 * self.seconds + 60)
                self.check_rtmp(f"job 3 {name}", log, r.wall)
                check_output(out, self.seconds, log, f"job 3 {name}")
                rows[name].append(r)
                progress(f"job 3 {name} run {run}/{self.solo_runs}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        med = self.table(f"3. presets/bgm.yaml (video loop + music playlist + aux mix) realtime {self.seconds} s "
                         f"to nginx-rtmp and an MP4: median of {self.solo_runs} runs", rows, ratios=False)
        plain = med["mediapub (bgm.yaml)"]
        plain_runs = rows["mediapub (bgm.yaml)"]
        for name, m in list(med.items())[1:]:
            # Each round's variant over that round's plain run (next to each other, so a load
            # that comes and goes hits both alike): their median and range.
            rounds = [r.cpu / p.cpu for r, p in zip(rows[name], plain_runs)]
            print(f"{name} / plain: cpu {m[1] / plain[1]:.3f}x rss {m[2] / plain[2]:.2f}x; "
                  f"per round cpu {statistics.median(rounds):.3f}x ({min(rounds):.3f}-{max(rounds):.3f})")
        sys.stdout.flush()

    # -- job 4 ----------------------------------------------------------------------

    def job_four(self):
        src = self.realtime_source()
        base = self.server()
        srt_port = free_port(socket.SOCK_DGRAM)
        out = os.path.join(self.tmp, "four.mp4")
        preset = self.preset("bench-four", f"""players:
  - id: main
    source: "{src}"
    video: true
    aux: false
  - id: music
    playlist:
      items: ["{MEDIA}/music-a.mp3", "{MEDIA}/music-b.flac"]
      mode: loop
    publish_volume: 60
  - id: ring
    source: "{MEDIA}/ringtone.wav"
    repeat: true
    publish_volume: 30
  - id: bed
    source: "{MEDIA}/loop.mp4"
    repeat: true
    publish_volume: 50
outputs:
  - url: "{base}/four"
  - url: "srt://127.0.0.1:{srt_port}?mode=caller&latency=200"
  - url: "{out}"
""")
        key = "mediapub (4 players, 3 outputs)"
        rows = {key: []}
        ssim = {}
        for run in range(1, self.solo_runs + 1):
            if os.path.exists(out):
                os.remove(out)
            log = self.log(f"job4-four-run{run}")
            received = os.path.join(self.tmp, "srt.ts")
            srt = self.srt_listener(srt_port, received, f"job4-srt-live-transmit-run{run}")
            try:
                self.probe.reset()
                r = run_child(self.mediapub_argv(preset, "--duration", f"{self.seconds}s"), log,
                              timeout=3 * self.seconds + 60)
            finally:
                srt.stop()
            self.check_rtmp("job 4", log, r.wall)
            check_output(out, self.seconds, log, "job 4 MP4 output")
            got, rtmp_bytes = os.path.getsize(received), self.probe.snapshot()[3]
            if got < 0.5 * rtmp_bytes:  # the same encoded stream, as MPEG-TS
                print_log(log)
                print_log(srt.log)
                raise BenchError(f"job 4: the SRT listener received {got} bytes, the RTMP server {rtmp_bytes}; log: {log}")
            os.remove(received)
            if not ssim:
                ssim[key] = ssim_db(out, src, log)
            rows[key].append(r)
            progress(f"job 4 run {run}/{self.solo_runs}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        self.table(f"4. 4 players (one video, three aux audio), 3 outputs (RTMP to nginx, SRT to "
                   f"srt-live-transmit, MP4) realtime {self.seconds} s: median of {self.solo_runs} runs; "
                   "SSIM of the MP4 against the video source", rows, ssim, ratios=False)

    # -- job 6 ----------------------------------------------------------------------

    def job_encode_once(self):
        src = self.realtime_source()
        base = self.server()
        srt_port = free_port(socket.SOCK_DGRAM)
        out = os.path.join(self.tmp, "three.mp4")
        srt_url = f"srt://127.0.0.1:{srt_port}?mode=caller&latency=200"
        one = self.preset("bench-one", f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n"
                          f"outputs:\n  - url: \"{base}/one\"\n")
        three = self.preset("bench-three", f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n"
                            f"outputs:\n  - url: \"{base}/three\"\n  - url: \"{srt_url}\"\n  - url: \"{out}\"\n")
        tee = "|".join([f"[f=flv:onfail=ignore]{base}/tee", f"[f=mpegts:onfail=ignore]{srt_url}",
                        f"[f=mp4]{out}"])
        commands = {
            "mediapub, 1 output (RTMP)": lambda: self.mediapub_argv(one),
            "mediapub, 3 outputs": lambda: self.mediapub_argv(three),
            "ffmpeg, 1 output (RTMP)": lambda: ["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-re", "-i", src,
                                                *FFMPEG_ENCODE, "-f", "flv", f"{base}/ffmpeg-one"],
            "ffmpeg tee, 3 outputs": lambda: ["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-y", "-re", "-i", src,
                                              *FFMPEG_ENCODE, "-map", "0:v", "-map", "0:a", "-f", "tee", tee],
        }
        rows = {k: [] for k in commands}
        # The ratio three/one is a few per cent, and a run's CPU drifts by as much on a
        # shared machine: each round runs one and three back to back, the ratio is taken
        # within the round, and the rounds' median is what is reported.
        for run in range(1, self.solo_runs + 1):
            for (key, command), tag in zip(commands.items(), ("one", "three", "ffmpeg-one", "ffmpeg-tee")):
                log = self.log(f"job6-{tag}-run{run}")
                if os.path.exists(out):
                    os.remove(out)
                received = os.path.join(self.tmp, "srt6.ts")
                srt = self.srt_listener(srt_port, received, f"job6-srt-live-transmit-{tag}-run{run}")
                try:
                    self.probe.reset()
                    r = run_child(command(), log, timeout=3 * self.seconds + 60, threads=key.startswith("mediapub"))
                finally:
                    srt.stop()
                self.check_rtmp(f"job 6 {key}", log, r.wall)
                if key.endswith("3 outputs"):
                    check_output(out, self.seconds, log, f"job 6 {key} MP4 output")
                    got, rtmp_bytes = os.path.getsize(received), self.probe.snapshot()[3]
                    if got < 0.5 * rtmp_bytes:
                        print_log(log)
                        raise BenchError(f"job 6 {key}: the SRT listener received {got} bytes, the RTMP server {rtmp_bytes}; log: {log}")
                os.remove(received)
                rows[key].append(r)
                progress(f"job 6 round {run}/{self.solo_runs} {key}: {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        med = self.table(f"6. encode once: the job 2 source realtime {self.seconds} s to one output and to three "
                         f"(RTMP to nginx, SRT to srt-live-transmit, MP4): median of {self.solo_runs} rounds",
                         rows, ratios=False)

        def rounds(three, one):
            ratios = [t.cpu / o.cpu for t, o in zip(rows[three], rows[one])]
            return (f"{statistics.median(ratios):.3f}x (rounds {min(ratios):.3f}..{max(ratios):.3f})")
        print(f"3 outputs / 1 output, CPU, median of the rounds' ratios: "
              f"mediapub {rounds('mediapub, 3 outputs', 'mediapub, 1 output (RTMP)')}; "
              f"ffmpeg (tee) {rounds('ffmpeg tee, 3 outputs', 'ffmpeg, 1 output (RTMP)')}")
        # Where mediapub's extra CPU goes: its threads by name, median over the rounds,
        # those that cost more with three outputs than with one first (the outputs' own
        # threads: v/a appsrcs, muxers, sinks, libsrt's), with the x264 and decoding
        # threads beside them, whose run-to-run drift is the noise in the ratio above.
        one_t, three_t = rows["mediapub, 1 output (RTMP)"], rows["mediapub, 3 outputs"]
        names = {n for r in one_t + three_t for n in r.threads}
        med_t = lambda rs, n: statistics.median(r.threads.get(n, 0) for r in rs)
        grown = sorted(names, key=lambda n: med_t(one_t, n) - med_t(three_t, n))
        print("mediapub threads, CPU s (median of the rounds), 1 output -> 3 outputs: " + ", ".join(
            f"{n} {med_t(one_t, n):.2f}->{med_t(three_t, n):.2f}" for n in grown
            if max(med_t(one_t, n), med_t(three_t, n)) >= 0.02))
        print(f"mediapub 3 outputs / 1 output: rss {med['mediapub, 3 outputs'][2] / med['mediapub, 1 output (RTMP)'][2]:.2f}x; "
              f"mediapub 3 outputs / ffmpeg tee: cpu {med['mediapub, 3 outputs'][1] / med['ffmpeg tee, 3 outputs'][1]:.2f}x "
              f"rss {med['mediapub, 3 outputs'][2] / med['ffmpeg tee, 3 outputs'][2]:.2f}x")
        sys.stdout.flush()

    # -- memory ---------------------------------------------------------------------

    def job_memory(self):
        """Memory follows the output's size, not the source's: a 4K source on the 720p output
        next to a 720p one, each looped (the next round prerolls while one plays)."""
        uhd = os.path.join(self.tmp, "uhd.mp4")
        run_child(["gst-launch-1.0", "-q", "videotestsrc", "pattern=ball", "num-buffers=150", "!",
                   "video/x-raw,width=3840,height=2160,framerate=30/1,format=I420", "!",
                   "x264enc", "speed-preset=ultrafast", "bitrate=8000", "key-int-max=60", "!",
                   "video/x-h264,profile=high", "!", "h264parse", "!", "mp4mux", "name=m", "!",
                   "filesink", f"location={uhd}", "audiotestsrc", "wave=pink-noise", "volume=0.05",
                   "num-buffers=215", "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "m."],
                  self.log("uhd-source"))
        print(f"\n== memory: a looped source on the 720p output, {self.seconds} s of output as fast as possible ==")
        for label, name, src in (("720p source -> 720p null", "src720", os.path.join(MEDIA, "loop.mp4")),
                                 ("4K source -> 720p null", "src2160", uhd)):
            preset = self.preset(name, f"players:\n  - id: main\n    source: \"{src}\"\n    video: true\n    repeat: true\n")
            r = run_child(self.mediapub_argv(preset, "--output", "null://", "--no-realtime",
                                             "--duration", f"{self.seconds}s"),
                          self.log(f"memory-{name}"), timeout=20 * self.seconds + 120)
            print(f"{label:<34} {self.seconds}s of output in {r.wall:6.2f}s  speed {self.seconds / r.wall:6.2f}x  "
                  f"peak RSS {r.rss:.0f} MiB", flush=True)

    def run(self):
        # An up-to-date GStreamer registry, so that no run pays for (or counts) a plugin scan.
        subprocess.run(["gst-inspect-1.0", "x264enc"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"mediapub side by side: BENCH_RUNS={self.runs} BENCH_SOLO_RUNS={self.solo_runs} "
              f"BENCH_SECONDS={self.seconds} BENCH_FILE_SECONDS={self.file_seconds} "
              f"jobs {','.join(sorted(self.jobs))}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
        print("every tool at x264 veryfast 2500k CBR (600 ms VBV), zerolatency, no B-frames, keyframe every 2 s, "
              "High, 1280x720@30; AAC 128k 48 kHz stereo. CPU is user+sys of the child, RSS its peak (wait4)")
        sys.stdout.flush()
        if "1" in self.jobs:
            self.job_file()
        if "2" in self.jobs or "5" in self.jobs:
            self.job_rtmp()
        if "3" in self.jobs:
            self.job_bgm()
        if "4" in self.jobs:
            self.job_four()
        if "6" in self.jobs:
            self.job_encode_once()
        if "7" in self.jobs:
            self.job_file_realtime()
        if "8" in self.jobs:
            self.job_bgm_liquidsoap()
        if "9" in self.jobs:
            self.job_live()
        if "overlays" in self.jobs:
            self.job_overlays()
        if "http" in self.jobs:
            self.job_http()
        if "mem" in self.jobs:
            self.job_memory()
