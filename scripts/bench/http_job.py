"""The http job: job 3 (presets/bgm.yaml realtime to nginx-rtmp and an MP4) with the HTTP
server (docs/http.md) off, on with no client, on with one operator's page open in a headless
chromium (scripts/browser/page.py, its thumbnail and events), and on with 50 clients that do
what a page does (an event stream read as it comes, the thumbnail and status once a second,
the log's 200 lines every 3 s).
mediapub's CPU alone (wait4), in rounds (the four runs back to back in each); what each costs
over the server off is given in % of one core: each round's difference over its wall time,
their median and range. The budget (docs/http.md): none measurable with no client, under 1 %
for one page, under 3 % for 50 clients."""

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

from media import REPO, check_output
from runner import free_port, progress, run_child


class PageClients:
    """`n` clients of the HTTP API doing what a page does, until `stop`."""

    def __init__(self, port, n):
        self.port, self.n = port, n
        self.done = threading.Event()
        self.threads = []
        self.requests = 0
        self.socks = []

    def start(self):
        for _ in range(self.n):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            self.socks.append(s)
        t = threading.Thread(target=self.read_events, daemon=True)
        t.start()
        self.threads.append(t)
        t = threading.Thread(target=self.poll, daemon=True)
        t.start()
        self.threads.append(t)

    def read_events(self):
        for s in self.socks:
            s.setblocking(False)
        while not self.done.is_set():
            for s in self.socks:
                try:
                    s.recv(65536)
                except (BlockingIOError, OSError):
                    pass
            time.sleep(0.1)

    def poll(self):
        second = 0
        while not self.done.wait(1.0):
            second += 1
            paths = ["/api/thumbnail.jpg?width=320", "/api/status"] + (["/api/log?lines=200"] if second % 3 == 0 else [])
            for _ in range(self.n):
                for path in paths:
                    try:
                        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                        c.request("GET", path)
                        c.getresponse().read()
                        c.close()
                        self.requests += 1
                    except OSError:
                        pass

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join(10)
        for s in self.socks:
            s.close()


class HTTPJobs:
    HTTP_VARIANTS = ["server off", "server on, no client", "server on, one page (chromium)", "server on, 50 clients"]

    def job_http(self):
        base = self.server()
        out = os.path.join(self.tmp, "http.mp4")
        rows = {name: [] for name in self.HTTP_VARIANTS}
        for run in range(1, self.solo_runs + 1):
            for variant, name in enumerate(self.HTTP_VARIANTS):
                if os.path.exists(out):
                    os.remove(out)
                log = self.log(f"http-run{run}-variant{variant}")
                self.probe.reset()
                port = free_port()
                extra = [] if variant == 0 else ["--http", f"127.0.0.1:{port}"]
                argv = self.mediapub_argv(os.path.join(REPO, "presets", "bgm.yaml"), "--output-env", "RTMP_URL",
                                          "--output", out, "--duration", f"{self.seconds}s", *extra)
                clients = []

                def started(pid, variant=variant, port=port, log=log):
                    deadline = time.monotonic() + 30
                    while variant > 0 and time.monotonic() < deadline:
                        try:
                            socket.create_connection(("127.0.0.1", port), timeout=1).close()
                            break
                        except OSError:
                            time.sleep(0.05)
                    if variant == 2:
                        cfg = os.path.join(self.tmp, "page.json")
                        with open(cfg, "w") as f:
                            json.dump({"url": f"http://127.0.0.1:{port}", "mode": "watch", "seconds": self.seconds + 30}, f)
                        clients.append(subprocess.Popen(["/usr/bin/python3", os.path.join(REPO, "scripts", "browser", "page.py"), cfg],
                                                        stdout=subprocess.DEVNULL, stderr=open(log, "ab")))
                    elif variant == 3:
                        c = PageClients(port, 50)
                        c.start()
                        clients.append(c)

                r = run_child(argv, log, env={"RTMP_URL": f"{base}/http"}, timeout=3 * self.seconds + 60, started=started)
                for c in clients:
                    if isinstance(c, PageClients):
                        c.stop()
                    else:
                        c.terminate()
                        c.wait(30)
                self.check_rtmp(f"http job {name}", log, r.wall)
                check_output(out, self.seconds, log, f"http job {name}")
                rows[name].append(r)
                progress(f"http {name} run {run}/{self.solo_runs}: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU, {r.rss:.0f} MiB")
        self.table(f"http: job 3 realtime {self.seconds} s with the HTTP server (docs/http.md): median of {self.solo_runs} rounds",
                   rows, ratios=False)
        off = rows["server off"]
        for name in self.HTTP_VARIANTS[1:]:
            extra = [(r.cpu - o.cpu) / r.wall * 100 for r, o in zip(rows[name], off)]
            print(f"{name}: {statistics.median(extra):+.2f} % of one core over the server off "
                  f"(rounds {min(extra):+.2f}..{max(extra):+.2f})")
        sys.stdout.flush()
