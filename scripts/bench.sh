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
