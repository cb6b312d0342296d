#!/usr/bin/env bash
# Generates the small free sample media the shipped presets use (presets/media/).
# Everything is synthesised with GStreamer test sources: nothing is downloaded.
set -euo pipefail
dir="${1:-presets/media}"
mkdir -p "$dir"
# Bump when a recipe below changes (3: the music has a title and an artist; 4: the video's ball moves over
# blue, not black, so monitor.picture's black check never fires on it; the MP3 has a Xing header, its exact length): media made by an older recipe is made again.
version=4
if [ "$(cat "$dir/.recipe" 2>/dev/null)" != "$version" ]; then
  rm -f "$dir/loop.mp4" "$dir/standby.png" "$dir/music-a.mp3" "$dir/music-b.flac" "$dir/ringtone.wav"
fi
gst() { gst-launch-1.0 -q "$@" >/dev/null; }

# 8-bit 4:2:0 (High profile), what cameras and phones record: left to itself x264enc
# takes videotestsrc's 4:4:4 10-bit, 4x the memory per decoded frame and unplayable in browsers.
[ -s "$dir/loop.mp4" ] || gst videotestsrc pattern=ball background-color=0xff306090 num-buffers=300 ! video/x-raw,width=1280,height=720,framerate=30/1,format=I420 \
  ! x264enc speed-preset=veryfast bitrate=1500 key-int-max=60 ! video/x-h264,profile=high ! h264parse ! mp4mux name=m ! filesink location="$dir/loop.mp4" \
  audiotestsrc wave=pink-noise volume=0.05 num-buffers=470 ! audioconvert ! avenc_aac ! aacparse ! m.
[ -s "$dir/standby.png" ] || gst videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,width=1280,height=720 ! videoconvert ! pngenc ! filesink location="$dir/standby.png"
[ -s "$dir/music-a.mp3" ] || gst audiotestsrc wave=sine freq=330 volume=0.4 num-buffers=1300 ! audioconvert ! taginject 'tags="title=\"Tone A\",artist=mediapub"' ! lamemp3enc bitrate=128 ! xingmux ! id3v2mux ! filesink location="$dir/music-a.mp3"
[ -s "$dir/music-b.flac" ] || gst audiotestsrc wave=triangle freq=523 volume=0.3 num-buffers=1300 ! audioconvert ! taginject 'tags="title=\"Tone B\",artist=mediapub"' ! flacenc ! filesink location="$dir/music-b.flac"
[ -s "$dir/ringtone.wav" ] || gst audiotestsrc wave=sine freq=880 volume=0.3 num-buffers=100 ! audioconvert ! wavenc ! filesink location="$dir/ringtone.wav"
echo "$version" > "$dir/.recipe"
echo "sample media in $dir"
