#!/usr/bin/env python3
"""make bench: mediapub side by side with ffmpeg and a plain gst-launch pipeline.

The same jobs, at the encoder settings mediapub uses (x264 veryfast, 2500k CBR with
x264enc's 600 ms VBV, zerolatency, no B-frames, keyframe every 2 s, High profile,
1280x720@30; AAC 128k 48 kHz stereo), run alternately (mediapub, ffmpeg, gst-launch,
mediapub, ...) and reported as medians, with the ratios mediapub/ffmpeg and
mediapub/gst-launch. CPU time and peak RSS are the child's own, from wait4(2).

Called by scripts/bench.sh with the release binary and a temp dir:
  bench.py --mediapub .build/release/mediapub --tmp DIR
Environment: BENCH_SECONDS (60) length of the realtime jobs and output seconds of the
memory job; BENCH_RUNS (5) runs per tool in jobs 1, 2 and 5; BENCH_SOLO_RUNS
(min(3, BENCH_RUNS)) runs of the mediapub-only jobs 3 and 4 and rounds of job 6; BENCH_FILE_SECONDS
(20) length of job 1's source; BENCH_JOBS (1,2,3,4,5,6,mem) which jobs to run.

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
