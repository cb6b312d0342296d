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



def check_encoded(path, expected, log, what):
    """An output file must be what every tool was asked for (ffprobe): H.264 High 1280x720
    at 30 fps and AAC 48 kHz stereo, with expected seconds of video (half a second short
    at most, one long at most); and it must play (ffmpeg): most frames differ from the
    one before (the bench's sources move in every frame), and the sound is not silence."""
    check_output(path, expected, log, what)
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                          "stream=codec_type,codec_name,profile,width,height,r_frame_rate,sample_rate,channels",
                          "-of", "compact=p=0:nk=0", path], capture_output=True, text=True)
    streams = [dict(kv.split("=", 1) for kv in line.split("|") if "=" in kv) for line in out.stdout.splitlines()]
    video = [s for s in streams if s.get("codec_type") == "video"]
    audio = [s for s in streams if s.get("codec_type") == "audio"]
    want_video = {"codec_name": "h264", "profile": "High", "width": "1280", "height": "720", "r_frame_rate": f"{FPS}/1"}
    want_audio = {"codec_name": "aac", "sample_rate": "48000", "channels": "2"}
    wrong = []
    if len(video) != 1 or any(video[0].get(k) != v for k, v in want_video.items()):
        wrong.append(f"video {video} (expected {want_video})")
    if len(audio) != 1 or any(audio[0].get(k) != v for k, v in want_audio.items()):
        wrong.append(f"audio {audio} (expected {want_audio})")
    got = ffprobe_duration(path)
    if got > expected + 1:
        wrong.append(f"{got:.2f} s of video (expected {expected:.2f} s)")
    if not wrong:
        wrong += moving_and_audible(path)
    if out.returncode != 0 or wrong:
        print_log(log)
        raise BenchError(f"{what}: {path}: {'; '.join(wrong) or out.stderr.strip()}; log: {log}")


def moving_and_audible(path):
    """What is wrong with path's picture and sound, if anything: a still or black picture
    (fewer than half of the frames differ from the one before, by ffmpeg's framemd5) or silence."""
    p = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-map", "0:v", "-f", "framemd5", "-",
                        "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"], capture_output=True, text=True)
    frames = [line.split(",")[-1].strip() for line in p.stdout.splitlines() if line and not line.startswith("#")]
    m = re.search(r"mean_volume: (-?[0-9.]+|-inf) dB", p.stderr)
    wrong = []
    if p.returncode != 0 or not frames or not m:
        return [f"ffmpeg could not play it: {p.stderr.strip()[-300:]}"]
    changes = sum(a != b for a, b in zip(frames, frames[1:]))
    if changes < len(frames) / 2:
        wrong.append(f"only {changes} of {len(frames)} frames differ from the one before: a still picture")
    if m.group(1) == "-inf" or float(m.group(1)) < -60:
        wrong.append(f"the sound is silence (mean volume {m.group(1)} dB)")
    return wrong
