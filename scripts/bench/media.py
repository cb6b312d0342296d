"""Media: the encoder settings every tool is given, the sources the jobs play, and the checks
of what the tools wrote (ffprobe, ffmpeg's ssim filter)."""

import os
import re
import shlex
import subprocess

from runner import BenchError, print_log, run_child

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEDIA = os.path.join(REPO, "presets", "media")

# The encoder settings of mediapub's Encoder.swift and presets/demo.yaml, for each tool.
KBPS, FPS, GOP, AKBPS = 2500, 30, 60, 128
FFMPEG_ENCODE = [
    "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-bf", "0",
    "-b:v", f"{KBPS}k", "-maxrate", f"{KBPS}k", "-bufsize", f"{KBPS * 600 // 1000}k",  # x264enc pass=cbr, vbv 600 ms
    "-g", str(GOP), "-profile:v", "high", "-pix_fmt", "yuv420p",
    "-s", "1280x720", "-r", str(FPS),
    "-c:a", "aac", "-b:a", f"{AKBPS}k", "-ar", "48000", "-ac", "2",
]
GST_VIDEO = (f"queue ! videoconvert ! videoscale ! videorate ! video/x-raw,format=I420,width=1280,height=720,framerate={FPS}/1 "
             f"! x264enc bitrate={KBPS} key-int-max={GOP} speed-preset=veryfast tune=zerolatency bframes=0 "
             "! video/x-h264,profile=high ! h264parse ! queue")
GST_AUDIO = ("queue ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=2 "
             f"! avenc_aac bitrate={AKBPS * 1000} ! aacparse ! queue")
TOOLS = ["mediapub", "ffmpeg", "gst-launch"]


def ffprobe_duration(path, stream="v:0"):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries",
                          "stream=duration:format=duration", "-of", "default=nw=1:nk=1", path],
                         capture_output=True, text=True)
    for line in out.stdout.split():
        try:
            return float(line)
        except ValueError:
            continue
    return 0.0


def check_output(path, expected, log, what):
    """An output file must exist and hold (nearly) all of the expected video."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        print_log(log)
        raise BenchError(f"{what}: no output at {path}; log: {log}")
    got = ffprobe_duration(path)
    if got < expected - 0.5:
        print_log(log)
        raise BenchError(f"{what}: {path} holds {got:.2f} s of video, expected {expected:.2f} s; log: {log}")


def ssim_db(output, source, log):
    """ffmpeg's ssim filter, output against source: the "All:... (dB)" figure."""
    argv = ["ffmpeg", "-nostdin", "-hide_banner", "-i", output, "-i", source, "-lavfi", "ssim", "-f", "null", "-"]
    with open(log, "ab") as f:
        f.write(("$ " + " ".join(shlex.quote(a) for a in argv) + "\n").encode())
        p = subprocess.run(argv, capture_output=True, text=True)
        f.write(p.stderr.encode())
    m = re.search(r"All:[0-9.]+ \(([0-9.]+|inf)\)", p.stderr)
    if p.returncode != 0 or not m:
        print_log(log)
        raise BenchError(f"SSIM of {output} against {source} failed; log: {log}")
    return float(m.group(1))


def make_source(path, seconds, log):
    """A moving 1280x720@30 test pattern with a sine, H.264 (High, 4:2:0)/AAC, good quality."""
    run_child(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "warning", "-y",
               "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate={FPS}:duration={seconds}",
               "-f", "lavfi", "-i", f"sine=frequency=440:beep_factor=4:sample_rate=48000:duration={seconds}",
               "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", "-g", str(GOP),
               "-c:a", "aac", "-b:a", "192k", "-ac", "2", "-shortest", path], log)

