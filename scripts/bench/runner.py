"""The runner and its measurements: children run to their end with their own CPU time and
peak RSS (wait4), their threads' CPU sampled from /proc, helper services we start and stop,
and the small waits and checks the jobs share."""

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time


class BenchError(Exception):
    pass


def env_int(name, default, minimum=1):
    raw = os.environ.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BenchError(f"{name}={raw!r}: not a whole number")
    if value < minimum:
        raise BenchError(f"{name}={raw}: at least {minimum}")
    return value


def progress(text):
    print(f"  .. {text}", file=sys.stderr, flush=True)


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise BenchError(f"timed out after {timeout} s waiting for {what}")


def tcp_accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def udp_bound(port):
    suffix = f":{port:04X}"
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            with open(table) as f:
                if any(line.split()[1].endswith(suffix) for line in list(f)[1:]):
                    return True
        except OSError:
            pass
    return False


def print_log(path, lines=80):
    try:
        with open(path, errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        tail = ["(no log)"]
    print(f"---- last {len(tail)} lines of {path} ----", file=sys.stderr)
    for line in tail:
        print(line, file=sys.stderr)
    print("----", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Children

class Result:
    def __init__(self, wall, cpu, rss_mib):
        self.wall, self.cpu, self.rss = wall, cpu, rss_mib
        self.extra = {}


class ThreadTimes:
    """The CPU seconds of a running child's threads, by thread name (digits folded: task3
    and task4 are one name), read from /proc every quarter second until it ends: the
    last reading of each thread, so one that ends between readings loses its last
    quarter second at most."""

    def __init__(self, pid):
        self.pid, self.last, self.done = pid, {}, threading.Event()
        self.tick = os.sysconf("SC_CLK_TCK")
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.wait(0.25):
            try:
                tids = os.listdir(f"/proc/{self.pid}/task")
            except OSError:
                return
            for tid in tids:
                try:
                    with open(f"/proc/{self.pid}/task/{tid}/stat") as f:
                        stat = f.read()
                except OSError:
                    continue
                name = re.sub(r"\d+", "N", stat[stat.index("(") + 1:stat.rindex(")")])
                fields = stat[stat.rindex(")") + 2:].split()
                self.last[tid] = (name, (int(fields[11]) + int(fields[12])) / self.tick)

    def stop(self):
        self.done.set()
        self.thread.join()
        by_name = {}
        for name, seconds in self.last.values():
            by_name[name] = by_name.get(name, 0) + seconds
        return by_name


def run_child(argv, log, env=None, on_line=None, timeout=None, threads=False, started=None):
    """Runs argv to its end; stderr (and stdout, unless on_line reads it) to log.
    Returns wall s, CPU s (user+sys) and peak RSS MiB of this child alone (wait4);
    with threads, also its threads' CPU s by name (Result.threads, see ThreadTimes).
    on_line(t, line) gets each stdout line with the monotonic time it arrived.
    started(pid) is called once the child runs, before it is waited for (a child that
    stops on a signal: its pid, never the Popen, whose poll would reap it); the child
    is killed if it raises."""
    with open(log, "ab") as err:
        err.write(("$ " + " ".join(shlex.quote(a) for a in argv) + "\n").encode())
        err.flush()
        full_env = dict(os.environ, **(env or {}))
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE if on_line else err, stderr=err, env=full_env)
    if started:
        try:
            started(p.pid)
        except BaseException:
            p.kill()
            p.wait()
            raise
    reader = None
    if on_line:
        def read():
            for line in p.stdout:
                on_line(time.monotonic(), line)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
    timed_out = []
    timer = None
    if timeout:
        def kill():
            timed_out.append(True)
            p.kill()
        timer = threading.Timer(timeout, kill)
        timer.start()
    thread_times = {}
    if threads:
        sampler = ThreadTimes(p.pid)
        # Waits for the end without reaping: the child's /proc entry stays until the sampler stops.
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
        thread_times = sampler.stop()
    _, status, usage = os.wait4(p.pid, 0)
    what = os.path.basename(log)[4:-4]  # the log's name: job, tool, run
    wall = time.monotonic() - t0
    if timer:
        timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    if reader:
        reader.join(5)
        p.stdout.close()
    if timed_out:
        print_log(log)
        raise BenchError(f"{what} ({argv[0]}) did not finish within {timeout:.0f} s (killed); log: {log}")
    if p.returncode != 0:
        print_log(log)
        raise BenchError(f"{what} ({argv[0]}) failed with exit {p.returncode}; log: {log}")
    result = Result(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    result.threads = thread_times
    return result


class Service:
    """A helper server (nginx, srt-live-transmit) we start and stop ourselves."""

    def __init__(self, argv, log, stdout=None):
        self.log = log
        with open(log, "ab") as err:
            err.write(("$ " + " ".join(shlex.quote(a) for a in argv) + "\n").encode())
            err.flush()
            out = open(stdout, "wb") if stdout else err
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            if stdout:
                out.close()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

