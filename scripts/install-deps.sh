#!/usr/bin/env bash
# Installs the Debian packages mediapub needs, if any is missing.
# usage: scripts/install-deps.sh [--test]   (--test adds the tools the tests and make bench use)
set -euo pipefail

packages=(
  pkg-config
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libcurl4-openssl-dev libsrt-gnutls-dev libyaml-dev libsoup-3.0-dev libebur128-dev libgdk-pixbuf-2.0-dev libfontconfig-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-tools
  gstreamer1.0-x fontconfig fonts-dejavu-core
  tzdata
)
if [ "${1:-}" = "--test" ]; then
  packages+=(nginx libnginx-mod-rtmp srt-tools ffmpeg systemd openssl python3 e2fsprogs util-linux mount liquidsoap icecast2 libc-bin gcc libc6-dev chromium chromium-driver python3-selenium)
fi

# PyYAML reads the Kubernetes manifests in the deploy tests (PyPI, for the python3 on PATH).
if [ "${1:-}" = "--test" ] && ! python3 -c 'import yaml' 2>/dev/null; then
  python3 -m pip install -q pyyaml
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
