#!/usr/bin/env python3
"""make soak's runner: runs mediapub to its end and watches it from outside.

usage: watch.py SOCKET REPORT -- MEDIAPUB ARGS...

Five times a second it reads the child's resident memory, threads and open
file descriptors from /proc, and the output time it has made from its control
socket (`status`, output_time_ms). At the end it writes REPORT: the peak RSS,
the same three figures at points of the output timeline, the highest RSS in
each tenth of the run, and whether they stayed flat after the baseline (output
minute 1, or a fifth of a shorter run): no RSS above 110 % of the highest seen
up to the baseline (items come and go, so a single sample is no baseline), and
no more threads or descriptors in the last tenth of the run than the most seen in
its first fifth (threads of items loading and ending come and go: minute 1 of a
run 39 times faster than realtime is 7 samples, too few to have seen their
range; a leak raises the last tenth however it is sampled). Exits 1
when they did not, 2 when the child failed (its stderr's tail printed) or gave
too few samples to judge.
"""

import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time


def proc_figures(pid):
    """(RSS MiB, threads, open fds) of pid, or None once it is gone."""
    try:
        rss = threads = None
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        return (rss, threads, fds) if rss is not None and threads is not None else None
    except OSError:
        return None


class Control:
    """One connection to the control socket, opened when it answers."""

    def __init__(self, path):
        self.path, self.sock, self.buf = path, None, b""

    def output_ms(self):
        try:
            if self.sock is None:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(2)
                self.sock.connect(self.path)
            self.sock.sendall(b'{"command":["status"]}\n')
            while b"\n" not in self.buf:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise OSError("closed")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            return json.loads(line).get("status", {}).get("output_time_ms")
        except (OSError, ValueError):
            if self.sock is not None:
                self.sock.close()
            self.sock, self.buf = None, b""
            return None


def main():
    sock_path, report = sys.argv[1], sys.argv[2]
    argv = sys.argv[sys.argv.index("--") + 1:]
    # stderr to a file, never a pipe: a pipe nobody reads would block the child once full.
    err_file = tempfile.TemporaryFile()
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_file)
    control = Control(sock_path)
    samples = []  # (output s, RSS MiB, threads, fds)
    while child.poll() is None:
        figures = proc_figures(child.pid)
        ms = control.output_ms()
        if figures and ms is not None:
            samples.append((ms / 1000, *figures))
        time.sleep(0.2)
    err_file.seek(0)
    err = err_file.read().decode(errors="replace")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if child.returncode != 0:
        sys.stderr.write(err[-4000:])
        print(f"soak: mediapub exited {child.returncode}", file=sys.stderr)
        sys.exit(2)
    if len(samples) < 10:
        print(f"soak: only {len(samples)} samples of the running process; nothing to judge", file=sys.stderr)
        sys.exit(2)
    end = samples[-1][0]
    base_at = min(60.0, end / 5)
    upto = [s for s in samples if s[0] <= base_at] or samples[:1]
    base = upto[-1]
    after = [s for s in samples if s[0] > base[0]] or samples[-1:]
    base_rss = max(s[1] for s in upto)
    lines = [f"peak RSS {peak:.0f} MiB; {len(samples)} samples of RSS, threads and open fds, from outside"]
    def point(label, s):
        return f"  {label:>12}: {s[1]:6.1f} MiB, {s[2]:3d} threads, {s[3]:3d} fds (output {s[0]:.0f} s)"
    lines.append(point("baseline", base))
    for fraction in (0.25, 0.5, 0.75):
        s = min(after, key=lambda s: abs(s[0] - end * fraction))
        lines.append(point(f"{fraction:.0%} of run", s))
    lines.append(point("end", samples[-1]))
    tenths = []
    for k in range(10):
        part = [s[1] for s in samples if end * k / 10 <= s[0] <= end * (k + 1) / 10]
        tenths.append(f"{max(part):.0f}" if part else "-")
    lines.append("highest RSS in each tenth of the run (MiB): " + " ".join(tenths))
    low, high = min(s[1] for s in after), max(s[1] for s in after)
    growth = (high - base_rss) / base_rss * 100
    first = [s for s in samples if s[0] <= max(base_at, end / 5)]
    last = [s for s in samples if s[0] >= end * 0.9] or samples[-1:]
    threads_cap, fds_cap = max(s[2] for s in first), max(s[3] for s in first)
    threads_last, fds_last = max(s[2] for s in last), max(s[3] for s in last)
    lines.append(f"up to the baseline: RSS at most {base_rss:.1f} MiB; after it: {low:.1f}..{high:.1f} MiB"
                 f" ({growth:+.1f} %, flat: at most +10 %); threads {min(s[2] for s in after)}..{max(s[2] for s in after)},"
                 f" fds {min(s[3] for s in after)}..{max(s[3] for s in after)}; first fifth at most {threads_cap} threads,"
                 f" {fds_cap} fds; last tenth at most {threads_last} threads, {fds_last} fds")
    problems = []
    if growth > 10:
        problems.append(f"RSS rose to {high:.1f} MiB, {growth:.1f} % above the {base_rss:.1f} MiB seen up to the baseline")
    if threads_last > threads_cap:
        problems.append(f"{threads_last} threads in the last tenth, at most {threads_cap} in the first fifth")
    if fds_last > fds_cap:
        problems.append(f"{fds_last} open fds in the last tenth, at most {fds_cap} in the first fifth")
    lines.append("flat: yes" if not problems else "flat: NO: " + "; ".join(problems))
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
