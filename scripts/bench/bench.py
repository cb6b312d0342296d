#!/usr/bin/env python3
"""make bench: mediapub side by side with ffmpeg, a plain gst-launch pipeline and liquidsoap.

The same jobs, at the encoder settings mediapub uses (x264 veryfast, 2500k CBR with
x264enc's 600 ms VBV, zerolatency, no B-frames, keyframe every 2 s, High profile,
1280x720@30; AAC 128k 48 kHz stereo), run alternately (mediapub, ffmpeg, gst-launch,
mediapub, ...) and reported as medians, with the ratios mediapub/ffmpeg,
mediapub/gst-launch and mediapub/liquidsoap. CPU time and peak RSS are the child's own,
from wait4(2).

Jobs: 1 a file to MP4 as fast as possible; 2 realtime to nginx-rtmp; 3 presets/bgm.yaml
to RTMP and MP4 (mediapub only), as it is, with its music crossfading, with audio.loudness
and with both (the CPU of each over the first: of the medians, and each round's over its
own plain run, median and range); 4 four players, three outputs (mediapub only); 5 the
first packet at the RTMP server (from the job 2 runs); 6 encode once; 7 job 1's file to
MP4 in realtime, liquidsoap (liq/file.liq) beside the other three; 8 presets/bgm.yaml to
an MP4, mediapub and liquidsoap (liq/bgm.liq); 9 a live SRT feed on air beside the
same job playing a file (mediapub), and that feed's decoding alone (gst-launch): the
feed's extra CPU over its own decoding against the 1.05 budget (live.py); overlays job 1's file to MP4 with a logo,
a now-playing text and a clock against the same run without (mediapub only, overlays.py);
http job 3 with the HTTP server off, on with no client, one page open, 50 clients (http_job.py);
mem the 4K -> 720p memory line.
liquidsoap plays in realtime, as a channel runs it, hence jobs 7 and 8; its startup
(liquidsoap --check) is printed below their tables, and its wall time, which holds that
startup, gets no ratio.

Called by scripts/bench.sh with the release binary and a temp dir:
  bench.py --mediapub .build/release/mediapub --tmp DIR
Environment: BENCH_SECONDS (60) length of the realtime jobs (2 to 6, 8, 9) and output seconds
of the memory job; BENCH_RUNS (5) runs per tool in jobs 1, 2, 5 and 7; BENCH_SOLO_RUNS
(min(3, BENCH_RUNS)) runs of jobs 3, 4 and 8 and rounds of jobs 6, 9, overlays and http; BENCH_FILE_SECONDS
(20) length of the source of jobs 1, 7 and overlays; BENCH_JOBS (1,2,3,4,5,6,7,8,9,overlays,http,mem)
which jobs to run.

Job 6 (encode once) runs the job 2 source realtime to one output (RTMP) and to three
(RTMP, SRT, MP4), in rounds, and gives the CPU of three over one: the median of the
rounds' ratios (one and three run back to back in each). ffmpeg does the same beside it,
to one output and through its tee muxer (which also encodes once) to the same three.

Any child that fails, or whose output is short or missing, fails the bench with its
log printed: never a silently wrong number.
"""

import argparse
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts

from jobs import Bench  # noqa: E402
from runner import BenchError  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mediapub", required=True, help="the mediapub binary (release build)")
    ap.add_argument("--tmp", required=True, help="a temp dir for media, logs and servers")
    args = ap.parse_args()
    t0 = time.monotonic()
    bench = None
    try:
        bench = Bench(args.mediapub, args.tmp)
        bench.run()
    except BenchError as e:
        print(f"bench: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
    finally:
        if bench:
            bench.close()
    print(f"\nbench driver: {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
