#!/usr/bin/env bash
# make bench: throughput and memory of the whole chain, as fast as possible.
# Prints output seconds per wall second (speed) and peak resident memory.
set -euo pipefail
bin=".build/release/mediapub"
# Up to date with the sources, never a stale build; quiet unless it fails.
build_log=$(swift build -c release 2>&1) || { echo "$build_log" >&2; exit 1; }
seconds="${BENCH_SECONDS:-60}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
run() {
  local label="$1"; shift
  local start end
  start=$(date +%s.%N)
  python3 - "$bin" "$@" <<'PY' > "$tmp/rss"
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
  end=$(date +%s.%N)
  python3 -c "import sys; w=float(sys.argv[2])-float(sys.argv[1]); print(f'{sys.argv[3]:<34} {sys.argv[4]}s of output in {w:6.2f}s  speed {float(sys.argv[4])/w:6.2f}x  peak RSS {sys.argv[5]} MiB')" \
    "$start" "$end" "$label" "$seconds" "$(cat "$tmp/rss")"
}
run "720p30 testsrc -> null" --preset presets/demo.yaml --output null:// --no-realtime --duration "${seconds}s"
run "720p30 testsrc -> mp4" --preset presets/demo.yaml --output "$tmp/bench.mp4" --no-realtime --duration "${seconds}s"
run "bgm (loop video + playlist) -> mp4" --preset presets/bgm.yaml --output "$tmp/bgm.mp4" --no-realtime --duration "${seconds}s"

# Memory follows the output's size, not the source's: a 4K source on the 720p output
# next to a 720p one, each looped (the next round prerolls while one plays).
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=150 ! video/x-raw,width=3840,height=2160,framerate=30/1,format=I420 \
  ! x264enc speed-preset=ultrafast bitrate=8000 key-int-max=60 ! video/x-h264,profile=high ! h264parse ! mp4mux name=m \
  ! filesink location="$tmp/uhd.mp4" audiotestsrc wave=pink-noise volume=0.05 num-buffers=215 ! audioconvert ! avenc_aac ! aacparse ! m. >/dev/null
source_job() {  # NAME SOURCE: a 720p30 job playing SOURCE in a loop
  cat > "$tmp/$1.yaml" <<YAML
name: $1
video:
  size: 1280x720
  fps: 30
  bitrate: 2500k
  keyframe_interval: 2s
audio:
  sample_rate: 48000
  channels: 2
  bitrate: 128k
players:
  - id: main
    source: "$2"
    video: true
    repeat: true
YAML
}
source_job src720 "$PWD/presets/media/loop.mp4"
source_job src2160 "$tmp/uhd.mp4"
run "720p source -> 720p null" --preset "$tmp/src720.yaml" --output null:// --no-realtime --duration "${seconds}s"
run "4K source -> 720p null" --preset "$tmp/src2160.yaml" --output null:// --no-realtime --duration "${seconds}s"
