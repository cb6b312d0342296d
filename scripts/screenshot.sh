#!/usr/bin/env bash
# make screenshot: docs/page.png, the operator's page (docs/http.md) as the test browser shows it,
# over presets/channel.yaml (its media from `make media`) recording to a temporary file.
# Debian's chromium, chromium-driver and python3-selenium (scripts/install-deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MEDIAPUB_BIN:-.build/debug/mediapub}
tmp=$(mktemp -d /tmp/mediapub-screenshot.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
live=$(free_port)
"$bin" --preset presets/channel.yaml --realtime --duration 120s --output "$tmp/channel.mkv" \
  --set "live.source=srt://127.0.0.1:$live?mode=listener&latency=200" \
  --control "$tmp/ctl.sock" --http "127.0.0.1:$port" >"$tmp/run.log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do
  curl -sf "http://127.0.0.1:$port/api/status" 2>/dev/null | grep -q '"state":"publishing"' && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/run.log"; exit 1; }
  sleep 0.2
done
printf '{"url": "http://127.0.0.1:%s", "mode": "screenshot", "screenshot": "%s/page.png"}\n' "$port" "$tmp" >"$tmp/page.json"
/usr/bin/python3 scripts/browser/page.py "$tmp/page.json" >/dev/null
# Small: 960 px wide, a palette of 64 colours (the page is flat colours and text).
ffmpeg -v error -y -i "$tmp/page.png" -vf "scale=960:-2:flags=lanczos,split[a][b];[a]palettegen=max_colors=64[p];[b][p]paletteuse=dither=none" docs/page.png
echo "docs/page.png: $(stat -c %s docs/page.png) bytes"
