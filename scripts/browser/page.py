#!/usr/bin/python3
"""The operator's page (docs/http.md) in a real browser: Debian's chromium, headless,
driven by chromium-driver through python3-selenium (run with /usr/bin/python3: a python3
earlier on PATH may not see Debian's modules).

usage: page.py CONFIG.json
CONFIG: {"url": "http://127.0.0.1:PORT", "mode": "check" | "screenshot" | "watch", "screenshot": PATH, "seconds": S,
         "token": TOKEN, "ctl": [argv of `mediapub ctl --socket S`], "player": ID,
         "nginx": {"pid": N, "argv": [...], "port": P}, "stall_s": S,
         "load_s": 30, "thumbs_per_s": 200, "sse_clients": 50}
Prints one JSON object: what it saw, each step's time and outcome. It asserts nothing
itself: the Swift test (PageBrowserTests) judges it, so a failure names the step.
"""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

PIXEL_JS = """
const img = document.getElementById('thumb');
if (!img || !img.complete || !img.naturalWidth) return null;
const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d'); g.drawImage(img, 0, 0);
const d = g.getImageData(Math.floor(c.width * 0.1), Math.floor(c.height * 0.5), 1, 1).data;
return [d[0], d[1], d[2]];
"""


def colour(rgb):
    """The pure colour a pixel is, or None."""
    if rgb is None:
        return None
    r, g, b = rgb
    for name, (want) in (("red", (1, 0, 0)), ("green", (0, 1, 0)), ("blue", (0, 0, 1))):
        hi = [v for v, w in zip(rgb, want) if w]
        lo = [v for v, w in zip(rgb, want) if not w]
        if min(hi) > 140 and max(lo) < 90:
            return name
    return None


def utc_now():
    """The wall time as mediapub's events write it (ISO 8601, UTC, milliseconds)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1100", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-default-apps", "--disable-sync"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(condition, timeout, step=0.05):
    """Looks at `condition` until it holds (its value) or `timeout` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(step)


class Load:
    """Clients alongside the page: `sse` event streams that never read, thumbnails at
    `rate` a second, and status read twice a second for its timeline lag."""

    def __init__(self, url, seconds, rate, sse):
        self.host, self.port = urlparse(url).hostname, urlparse(url).port
        self.seconds, self.rate, self.sse = seconds, rate, sse
        self.codes, self.lags, self.socks, self.errors = {}, [], [], []
        self.lock = threading.Lock()
        self.threads = []

    def start(self):
        for _ in range(self.sse):
            s = socket.create_connection((self.host, self.port), timeout=5)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n" % (self.host.encode(), self.port))
            self.socks.append(s)  # never read
        self.end = time.monotonic() + self.seconds
        workers = 8
        for i in range(workers):
            t = threading.Thread(target=self.thumbs, args=(self.rate / workers,), daemon=True)
            t.start()
            self.threads.append(t)
        t = threading.Thread(target=self.status, daemon=True)
        t.start()
        self.threads.append(t)

    def thumbs(self, rate):
        n, start = 0, time.monotonic()
        while time.monotonic() < self.end:
            try:
                c = http.client.HTTPConnection(self.host, self.port, timeout=5)
                c.request("GET", "/api/thumbnail.jpg")
                r = c.getresponse()
                body = r.read()
                code = r.status if body[:2] == b"\xff\xd8" or r.status != 200 else "not-jpeg"
                c.close()
            except Exception as e:  # counted, never fatal: the test judges the counts
                code = type(e).__name__
            with self.lock:
                self.codes[str(code)] = self.codes.get(str(code), 0) + 1
            n += 1
            pause = start + n / rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)

    def status(self):
        while time.monotonic() < self.end:
            try:
                c = http.client.HTTPConnection(self.host, self.port, timeout=5)
                c.request("GET", "/api/status")
                s = json.loads(c.getresponse().read())["status"]
                c.close()
                if "timeline" in s:
                    self.lags.append(s["timeline"]["lag_ms"])
            except Exception as e:
                self.errors.append(repr(e))
            time.sleep(0.5)

    def finish(self):
        for t in self.threads:
            t.join(self.seconds + 30)
        for s in self.socks:
            s.close()
        return {"thumbnail_codes": self.codes, "lag_ms_max": max(self.lags) if self.lags else None,
                "lag_samples": len(self.lags), "status_errors": self.errors[:5]}


def requests_made(driver):
    """Every URL the page asked for (the DevTools protocol's Network.requestWillBeSent)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def flag(driver):
    return driver.find_element(By.ID, "publishing").get_attribute("data-publishing")


def output_state(driver):
    rows = driver.find_elements(By.CSS_SELECTOR, "#outputs tr[data-output]")
    return {r.get_attribute("data-output"): (r.get_attribute("data-state"),
                                              r.find_elements(By.CSS_SELECTOR, "td")[1].value_of_css_property("color"))
            for r in rows}


def ctl(config, *words):
    r = subprocess.run(config["ctl"] + list(words), capture_output=True, text=True, timeout=20)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def check(config, driver):
    out = {}
    base = config["url"].rstrip("/")
    driver.get(base + "/")
    out["loaded"] = bool(wait(lambda: flag(driver) in ("on", "standby") and output_state(driver), 15))
    out["title"] = driver.title
    out["console_errors_at_load"] = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]

    # The picture: red, then blue once the player goes to its next item.
    out["red_seen"] = wait(lambda: colour(driver.execute_script(PIXEL_JS)) == "red", 15) is not None
    load = Load(base, config["load_s"], config["thumbs_per_s"], config["sse_clients"])
    load.start()
    out["load_began"] = utc_now()
    t0 = time.monotonic()
    out["ctl_next"] = ctl(config, "next", config["player"])
    blue = wait(lambda: colour(driver.execute_script(PIXEL_JS)) == "blue", 10)
    out["blue_after_s"] = round(time.monotonic() - t0, 3) if blue else None
    out["blue_seen_at"] = utc_now() if blue else None

    # `ctl publish off` from the terminal: the page says standby.
    t0 = time.monotonic()
    out["ctl_off"] = ctl(config, "publish", "off")
    standby = wait(lambda: flag(driver) == "standby", 10)
    out["standby_after_s"] = round(time.monotonic() - t0, 3) if standby else None
    out["standby_seen_at"] = utc_now() if standby else None
    out["flag_text_standby"] = text(driver, "publishing")
    out["ctl_on"] = ctl(config, "publish", "on")
    out["on_air_again"] = wait(lambda: flag(driver) == "on", 10) is not None

    # A click without a token: refused, and the page says so; nothing changed.
    driver.execute_script("sessionStorage.removeItem('mediapub.token')")
    out["locked_without_token"] = "locked" in driver.find_element(By.ID, "publish-off").get_attribute("class")
    driver.find_element(By.ID, "publish-off").click()
    out["refused_reply"] = wait(lambda: "refused" in text(driver, "reply") and text(driver, "reply"), 10)
    out["refused_status"] = ctl(config, "status")[1]

    # With the token: the output goes to standby.
    driver.find_element(By.ID, "token").send_keys(config["token"])
    driver.find_element(By.ID, "token-set").click()
    out["unlocked_with_token"] = wait(lambda: "locked" not in driver.find_element(By.ID, "publish-off").get_attribute("class"), 5) is not None
    driver.find_element(By.ID, "publish-off").click()
    out["token_reply"] = wait(lambda: "done" in text(driver, "reply") and text(driver, "reply"), 10)
    out["token_standby"] = wait(lambda: flag(driver) == "standby", 10) is not None
    out["slate_seen"] = wait(lambda: colour(driver.execute_script(PIXEL_JS)) == "green", 10) is not None
    out["stored_in_session"] = driver.execute_script("return sessionStorage.getItem('mediapub.token') !== null && document.cookie === ''")

    # nginx killed: amber within the stall time; back: green.
    nginx = config["nginx"]
    os.kill(nginx["pid"], signal.SIGKILL)
    t0 = time.monotonic()
    # Retrying, it goes reconnecting -> connecting -> reconnecting: both amber.
    amber = wait(lambda: [c for s, c in output_state(driver).values() if s in ("reconnecting", "connecting")], config["stall_s"] + 10)
    out["amber_after_s"] = round(time.monotonic() - t0, 3) if amber else None
    out["amber_colour"] = amber or []
    back = subprocess.Popen(nginx["argv"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out["nginx_again_pid"] = back.pid
    t0 = time.monotonic()
    green = wait(lambda: all(s == "publishing" for s, _ in output_state(driver).values()), 30)
    out["green_after_s"] = round(time.monotonic() - t0, 3) if green else None
    out["green_colour"] = [c for _, c in output_state(driver).values()]
    out["sparkline_points"] = len((driver.find_element(By.CSS_SELECTOR, "#outputs polyline").get_attribute("points") or "").split())
    out["log_lines"] = len(text(driver, "log").splitlines())

    out["load"] = load.finish()
    out["load_ended"] = utc_now()
    made = requests_made(driver)
    out["outside_requests"] = sorted({u for u in made if not u.startswith(base + "/")})
    out["requests"] = sorted({urlparse(u).path for u in made})
    out["console"] = [e for e in driver.get_log("browser")]
    # The refused command's 401 is the one error chromium logs by design (a response >= 400).
    out["console_errors"] = [e for e in out["console"] if e.get("level") == "SEVERE"
                             and not ("/api/command" in e.get("message", "") and "401" in e.get("message", ""))]
    return out


def screenshot(config, driver):
    base = config["url"].rstrip("/")
    driver.get(base + "/")
    wait(lambda: flag(driver) in ("on", "standby") and colour(driver.execute_script(PIXEL_JS)) is not None
         or driver.execute_script(PIXEL_JS) is not None, 20)
    time.sleep(2.5)  # let the sparkline and the log gather a few seconds: a picture, not a check
    driver.save_screenshot(config["screenshot"])
    return {"screenshot": config["screenshot"]}


def watch(config, driver):
    """The page open for `seconds`, as an operator leaves it (the bench's client)."""
    driver.get(config["url"].rstrip("/") + "/")
    time.sleep(config["seconds"])
    return {"watched_s": config["seconds"]}


def main():
    config = json.load(open(sys.argv[1]))
    # The browser and the load below the run under test: on a busy machine they take their
    # CPU after mediapub, so that a late timeline is mediapub's own (the server's work is in it).
    os.nice(10)
    # Ended by SIGTERM (the bench ends its watching page so): quit the browser all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    driver = browser()
    try:
        modes = {"screenshot": screenshot, "watch": watch, "check": check}
        result = modes[config.get("mode", "check")](config, driver)
    finally:
        driver.quit()
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
