"""Open a local HTML page in headless Chromium and report what a reader's browser would show wrong.

`python -m tools.browser PAGE.html [--screenshot FILE.png] [--width 1400]` loads the page in Debian's
`chromium` (headless, no sandbox, fresh profile, background networking off) driven over the DevTools
protocol on a pipe (`--remote-debugging-pipe`: NUL-terminated JSON on file descriptors 3 and 4; no
port, no extra package), and prints: console errors, uncaught exceptions, every request that is not
`data:` or `file:` (a self-contained page makes none), each image that did not load (naturalWidth 0)
and each inline SVG that does not parse as XML. Exit status 1 when any of those is found, 2 when
chromium is missing. `check(path)` returns the same as a `PageCheck` for tests.
"""
from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

NAMES = ("chromium", "chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--mute-audio", "--hide-scrollbars")

# Runs in the page after its load event: waits for every image to decode, then lists images and
# inline SVGs with what a reader would see.
PROBE = """
(async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  const images = imgs.map(i => ({alt: i.alt, src: i.currentSrc.slice(0, 40), complete: i.complete,
                                 width: i.naturalWidth, height: i.naturalHeight}));
  const svgs = Array.from(document.querySelectorAll('svg')).filter(s => !s.parentElement.closest('svg'))
    .map(s => {
      const xml = new XMLSerializer().serializeToString(s);
      const doc = new DOMParser().parseFromString(xml, 'image/svg+xml');
      const bad = doc.getElementsByTagName('parsererror').length > 0;
      const box = s.getBoundingClientRect();
      return {parses: !bad, width: box.width, height: box.height};
    });
  return {images, svgs, title: document.title, sections: document.querySelectorAll('section').length,
          height: document.documentElement.scrollHeight};
})()
"""


def find_chromium() -> str | None:
    env = os.environ.get("CHROMIUM")
    if env:
        return env if shutil.which(env) else None
    return next((p for p in map(shutil.which, NAMES) if p), None)


@dataclass
class PageCheck:
    url: str
    console_errors: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)        # every URL the page asked for
    failed_requests: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    svgs: list[dict] = field(default_factory=list)
    title: str = ""
    sections: int = 0
    screenshot: bytes | None = None

    @property
    def external_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(("data:", "file:"))]

    @property
    def broken_images(self) -> list[dict]:
        return [i for i in self.images if not i["complete"] or i["width"] <= 0]

    @property
    def broken_svgs(self) -> list[dict]:
        return [s for s in self.svgs if not s["parses"] or s["width"] <= 0]

    def problems(self) -> list[str]:
        return ([f"console error: {m}" for m in self.console_errors]
                + [f"uncaught exception: {m}" for m in self.exceptions]
                + [f"request leaves the file: {u}" for u in self.external_requests]
                + [f"request failed: {u}" for u in self.failed_requests]
                + [f"image did not load: {i['alt'] or i['src']}" for i in self.broken_images]
                + [f"inline SVG does not parse or is empty: {s}" for s in self.broken_svgs])


class DevTools:
    """A DevTools protocol client over Chromium's debugging pipe."""

    def __init__(self, chromium: str, profile: Path, width: int, height: int, timeout: float):
        cmd_r, self._cmd_w = os.pipe()       # we write commands; chromium reads them on fd 3
        self._res_r, res_w = os.pipe()       # chromium writes answers on fd 4
        # Above 10 first, so that moving them onto 3 and 4 in the child cannot overwrite one another.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (cmd_r, res_w)]
        for fd in (cmd_r, res_w):
            os.close(fd)
        args = [chromium] + list(FLAGS) + [f"--user-data-dir={profile}", f"--window-size={width},{height}",
                                           "--remote-debugging-pipe", "about:blank"]
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_DUP2, high[0], 3), (os.POSIX_SPAWN_DUP2, high[1], 4)]
        self.pid = os.posix_spawn(chromium, args, os.environ, file_actions=actions)
        for fd in high:
            os.close(fd)
        self.timeout = timeout
        self._buf = b""
        self._next = 0
        self.events: list[dict] = []

    def poll(self) -> int | None:
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        return None if pid == 0 else os.waitstatus_to_exitcode(status)

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._res_r], [], [], left)
            if ready:
                chunk = os.read(self._res_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe (did it start? try it by hand with --headless)")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._next:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method: str, session: str | None = None) -> dict:
        deadline = time.monotonic() + self.timeout
        for m in self.events:
            if m.get("method") == method and m.get("sessionId") == session:
                return m
        while True:
            m = self._read_message(deadline)
            self.events.append(m)
            if m.get("method") == method and m.get("sessionId") == session:
                return m

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        deadline = time.monotonic() + 10
        while self.poll() is None:
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        for fd in (self._cmd_w, self._res_r):
            try:
                os.close(fd)
            except OSError:
                pass


def _text(args: list[dict]) -> str:
    return " ".join(str(a.get("value", a.get("description", a.get("type", "")))) for a in args)


def check(page: Path, screenshot: bool = False, width: int = 1400, height: int = 1000,
          timeout: float = 60.0) -> PageCheck:
    """Load `page` in headless Chromium and collect what went wrong (see PageCheck.problems)."""
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("chromium is missing (Debian package `chromium`: apt-get install chromium)")
    url = Path(page).resolve().as_uri()
    result = PageCheck(url)
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        dt = DevTools(chromium, Path(profile), width, height, timeout)
        try:
            target = dt.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            sid = dt.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                dt.send(f"{domain}.enable", session=sid)
            dt.send("Page.navigate", {"url": url}, session=sid)
            dt.wait_event("Page.loadEventFired", sid)
            probe = dt.send("Runtime.evaluate", {"expression": PROBE, "awaitPromise": True, "returnByValue": True},
                            session=sid)
            if "exceptionDetails" in probe:
                raise RuntimeError(f"page probe failed: {probe['exceptionDetails']}")
            value = probe["result"]["value"]
            result.images, result.svgs = value["images"], value["svgs"]
            result.title, result.sections = value["title"], value["sections"]
            if screenshot:
                shot = dt.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                               session=sid)
                result.screenshot = base64.b64decode(shot["data"])
        finally:
            dt.close()
    for m in dt.events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            result.console_errors.append(_text(p.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            result.exceptions.append(d.get("exception", {}).get("description") or d.get("text", "?"))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            result.console_errors.append(f"{e.get('source', '')}: {e.get('text', '')} {e.get('url', '')}".strip())
        elif method == "Network.requestWillBeSent":
            result.requests.append(p.get("request", {}).get("url", ""))
        elif method == "Network.loadingFailed" and not p.get("canceled"):
            result.failed_requests.append(f"{p.get('errorText', '')} ({p.get('requestId', '')})")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.browser", description=__doc__.split("\n")[0])
    ap.add_argument("page", type=Path)
    ap.add_argument("--screenshot", type=Path, help="write a full-page PNG here")
    ap.add_argument("--width", type=int, default=1400)
    args = ap.parse_args(argv)
    if not args.page.is_file():
        print(f"error: {args.page}: no such file", file=sys.stderr)
        return 2
    try:
        res = check(args.page, screenshot=args.screenshot is not None, width=args.width)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.screenshot and res.screenshot:
        args.screenshot.write_bytes(res.screenshot)
    print(f"{res.url}: '{res.title}', {res.sections} sections, {len(res.images)} images, {len(res.svgs)} inline SVGs, "
          f"{len(res.requests)} requests")
    for p in res.problems():
        print("  " + p)
    print("  no problems" if not res.problems() else f"  {len(res.problems())} problem(s)")
    return 1 if res.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
