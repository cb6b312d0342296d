#!/usr/bin/env bash
# make bench: mediapub side by side with ffmpeg, a plain gst-launch pipeline and liquidsoap
# at the same encoder settings (medians of alternating runs, ratios, SSIM against the source),
# plus the 4K -> 720p memory job. The driver is scripts/bench/bench.py; its docstring
# lists the jobs and the BENCH_* variables. Never part of make test.
#   BENCH_SECONDS=5 BENCH_RUNS=1 make bench      a quick check that everything runs
#   BENCH_JOBS=1,5 make bench                    some of the jobs (1,2,3,4,5,6,7,8,overlays,mem)
#   BENCH_KEEP=1 make bench                      keep the temp dir (media, logs)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in ffmpeg ffprobe gst-launch-1.0 nginx srt-live-transmit liquidsoap python3; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make test-deps)" >&2; exit 1; }
done
[ -f /usr/lib/nginx/modules/ngx_rtmp_module.so ] || { echo "bench: nginx's RTMP module is missing (libnginx-mod-rtmp)" >&2; exit 1; }
# Built as deploy/Containerfile builds it (the Swift runtime linked in), in a build
# folder of its own so that it never stands in for, or is replaced by, a plain release build.
scratch=".build/bench"
bin="$scratch/release/mediapub"
# Up to date with the sources, never a stale build; quiet unless it fails.
echo "building $bin (swift build -c release --static-swift-stdlib)"
build_log=$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" 2>&1) || { echo "$build_log" >&2; exit 1; }
tmp="$(mktemp -d)"
if [ -n "${BENCH_KEEP:-}" ]; then
  trap 'echo "bench: media and logs kept in $tmp"' EXIT
else
  trap 'rm -rf "$tmp"' EXIT
fi
python3 scripts/bench/bench.py --mediapub "$bin" --tmp "$tmp"
echo "make bench: ${SECONDS} s in all (release build included)"
