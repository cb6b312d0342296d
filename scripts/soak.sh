#!/usr/bin/env bash
# make soak: A/V sync and timeline over a long run (default 1 h of output), as
# fast as possible, release build. A 1 s item (white flash + 1 kHz beep at its
# start, H.264 + AAC in MP4) repeats; the recording is then measured with
# ffprobe (every video step), ffmpeg signalstats (flashes) and the decoded PCM
# (beep onsets). Prints the flash-to-beep offsets, and the memory, threads and
# open fds seen from outside (scripts/soak/watch.py): it fails unless they stay
# flat after output minute 1 (RSS never 10 % above minute 1's highest; no more
# threads or fds in the last tenth of the run than the most in its first fifth).
set -euo pipefail
bin=".build/release/mediapub"
# Up to date with the sources, never a stale build; quiet unless it fails.
build_log=$(swift build -c release 2>&1) || { echo "$build_log" >&2; exit 1; }
duration="${SOAK_DURATION:-1h}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
ffmpeg -v error -f lavfi -i "color=c=black:s=160x90:r=25:d=1,format=yuv420p,geq=lum='if(lt(T\,0.079)\,235\,16)':cb=128:cr=128" \
  -f lavfi -i "sine=frequency=1000:sample_rate=48000:duration=1,volume='if(lt(t\,0.08)\,1\,0)':eval=frame" \
  -map 0:v -map 1:a -c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 25 -bf 0 -c:a aac -b:a 128k -ac 2 -t 1 "$tmp/item.mp4"
cat > "$tmp/soak.yaml" <<YAML
name: soak
video: { size: 160x90, fps: 25, bitrate: 300k, keyframe_interval: 1s, encoder_preset: ultrafast }
audio: { sample_rate: 48000, channels: 2, bitrate: 128k }
players:
  - { id: main, source: item.mp4, repeat: true, video: true }
outputs:
  - url: "file://$tmp/soak.mp4"
YAML
start=$(date +%s.%N)
# Watched from outside while it runs: RSS, threads and fds against its output time.
flat=0
python3 scripts/soak/watch.py "$tmp/soak.sock" "$tmp/memory" -- \
  "$bin" --preset "$tmp/soak.yaml" --no-realtime --duration "$duration" --control "$tmp/soak.sock" || flat=$?
[ "$flat" -le 1 ] || exit "$flat"
end=$(date +%s.%N)
ffprobe -v error -select_streams v -show_entries packet=pts_time -of csv=p=0 "$tmp/soak.mp4" > "$tmp/vpts"
ffmpeg -v error -i "$tmp/soak.mp4" -vf "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=$tmp/yavg" -an -f null -
ffmpeg -v error -i "$tmp/soak.mp4" -vn -ac 1 -ar 16000 -f s16le "$tmp/pcm"
astart=$(ffprobe -v error -select_streams a -show_entries stream=start_time -of csv=p=0 "$tmp/soak.mp4")
python3 - "$tmp" "$start" "$end" "$astart" <<'PY'
import array, math, re, sys
tmp, start, end, astart = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
pts = sorted(float(l) for l in open(f"{tmp}/vpts") if l.strip())
steps = {round((b - a) * 1000) for a, b in zip(pts, pts[1:])}
flashes, t, prev = [], None, 0.0
for line in open(f"{tmp}/yavg"):
    m = re.search(r"pts_time:([0-9.]+)", line)
    if m: t = float(m.group(1)); continue
    m = re.search(r"YAVG=([0-9.]+)", line)
    if m and t is not None:
        y = float(m.group(1))
        if y > 128 and prev <= 128: flashes.append(t)
        prev = y
pcm = array.array("h"); pcm.frombytes(open(f"{tmp}/pcm", "rb").read())
hop, beeps, quiet = 32, [], 10 ** 9
for i in range(0, len(pcm) - hop, hop):
    rms = math.sqrt(sum(v * v for v in pcm[i:i + hop]) / hop) / 32768
    loud = rms > 10 ** (-35 / 20)
    if loud and quiet * hop / 16000 >= 0.2: beeps.append(i / 16000 + astart)
    quiet = 0 if loud else quiet + 1
if not flashes or not beeps:
    sys.exit(f"soak: found {len(flashes)} flashes and {len(beeps)} beeps in the recording; nothing to pair")
offsets = []
for f in flashes:
    b = min(beeps, key=lambda b: abs(b - f))
    offsets.append((f - b) * 1000)
def stats(xs): return f"mean {sum(xs)/len(xs):+.1f} ms, range {min(xs):+.0f}..{max(xs):+.0f} ms" if xs else "none"
wall = end - start
out = pts[-1] + 0.04 if pts else 0
print(f"{out:.2f} s of output in {wall:.1f} s ({out / wall:.0f}x)")
print(f"video: {len(pts)} frames, steps {sorted(steps)} ms")
print(f"flashes {len(flashes)}, beeps {len(beeps)}; flash - beep: {stats(offsets)}, worst {max(map(abs, offsets)):.1f} ms")
n = max(1, len(offsets) // 12)
gaps = [round((b - a) * 1000) for a, b in zip(flashes, flashes[1:])]
print(f"flash intervals (ms): {sorted(set(gaps))}")
print(f"first {n} items: {stats(offsets[:n])}; last {n}: {stats(offsets[-n:])}")
PY
cat "$tmp/memory"
# Not flat (RSS 10 % above minute 1's, more threads or fds in the last tenth than the first fifth): make soak fails, after its report.
exit "$flat"
