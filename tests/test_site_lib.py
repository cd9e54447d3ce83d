"""Helpers for the site tests (tests/test_site*.py): building stores of games, reading and
checking the published files, and a small Chrome DevTools Protocol client for headless
Chromium. No tests here."""

from __future__ import annotations

import atexit
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

import html5lib

from pbem.site import publish as site_publish
from pbem import host
from pbem.core.registry import game_types, get_rules
from pbem.host.store import open_db

ROOT = Path(__file__).resolve().parent.parent
# Screenshots stay in the test's temp folder; set PBEM_SCREENSHOTS=DIR to keep a copy to look at.
SCREENSHOTS = Path(os.environ["PBEM_SCREENSHOTS"]) if os.environ.get("PBEM_SCREENSHOTS") else None


# --- games ------------------------------------------------------------------------------------

def players_for(game_type: str, n: int | None = None) -> list[str]:
    info = get_rules(game_type).info
    count = min(max(info.min_players, n or 3), info.max_players)
    return ["alice", "bob", "carol", "dave", "erin", "frank"][:count]


# Game options that keep the test games short (real options of the games, not test hooks).
SHORT = {"deity": {"rounds": "8"}}


def make_game(db, game_type: str, game_id: str, seed: str, finished: bool, running_turns: int = 4,
              players: list[str] | None = None, sched: dict | None = None, max_phases: int = 3000,
              options: dict | None = None) -> dict:
    """A game played by the bots: to the end, or `running_turns` turns in (still running)."""
    opts = SHORT.get(game_type, {}) if options is None else options
    host.new_game(db, game_type, game_id, players or players_for(game_type), seed=seed, turns=None, sched=sched,
                  options=opts)
    host.autoplay(db, game_id, max_phases=max_phases if finished else running_turns, turns=None)
    row = db["games"].get(game_id)
    assert (row["status"] == "finished") == finished, (game_type, game_id, row["status"], row["phase"])
    return row


def build_store(path: Path) -> tuple[object, dict]:
    """A store with a finished and a running game of every game type in games/.
    Returns (db, {type: {"finished": id, "running": id}})."""
    db = open_db(str(path))
    games: dict[str, dict] = {}
    for i, gtype in enumerate(game_types()):
        fin = f"{gtype}-done"
        run = f"{gtype}-live"
        # Finished games with two players (shorter), running ones with three.
        make_game(db, gtype, fin, seed=f"finished-seed-{gtype}-{i}", finished=True, players=players_for(gtype, 2))
        make_game(db, gtype, run, seed=f"running-secret-seed-{gtype}-7781", finished=False,
                  sched={"every": "72h", "at": "20:00", "tz": "Europe/London"})
        games[gtype] = {"finished": fin, "running": run}
    return db, games


_SHARED: dict = {}


def shared_site() -> dict:
    """One store with a finished and a running game of every type, published once per test
    run (the site tests share it read-only): {tmp, db, games, out, result}."""
    if not _SHARED:
        tmp = Path(tempfile.mkdtemp(prefix="pbem-site-"))
        atexit.register(shutil.rmtree, tmp, True)
        db, games = build_store(tmp / "pbem.db")
        out = tmp / "site"
        result = site_publish.publish(db, out)
        _SHARED.update(tmp=tmp, db=db, games=games, out=out, result=result)
    return _SHARED


# --- reading the site -----------------------------------------------------------------------

def parse_html(path: Path):
    """Parse with html5lib in strict mode: any HTML parse error raises."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(path.read_bytes())


def links(tree) -> list[str]:
    out = []
    for el in tree.iter():
        if not isinstance(el.tag, str):
            continue
        for attr in ("href", "src"):
            if attr in el.attrib:
                out.append(el.attrib[attr])
    return out


def ids(tree) -> list[str]:
    return [el.attrib["id"] for el in tree.iter() if isinstance(el.tag, str) and "id" in el.attrib]


def text_of(tree) -> str:
    return " ".join(" ".join(tree.itertext()).split())


def crawl(out: Path) -> dict[Path, object]:
    """Follow every internal href/src from index.html; return {html file: parsed tree}.
    Fails on a link to a missing file or fragment, or on any external link."""
    start = (out / "index.html").resolve()
    seen: dict[Path, object] = {}
    todo = [start]
    problems = []
    targets_with_fragments: list[tuple[Path, str, Path]] = []
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        tree = parse_html(page)
        seen[page] = tree
        for ref in links(tree):
            parts = urlsplit(ref)
            if parts.scheme or parts.netloc:
                problems.append(f"{page.relative_to(out)}: external link {ref}")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_relative_to(out.resolve()):
                problems.append(f"{page.relative_to(out)}: link leaves the site: {ref}")
                continue
            if not target.is_file():
                problems.append(f"{page.relative_to(out)}: broken link {ref}")
                continue
            if parts.fragment:
                targets_with_fragments.append((target, parts.fragment, page))
            if target.suffix == ".html":
                todo.append(target)
    for target, frag, page in targets_with_fragments:
        if frag not in ids(seen.get(target) or parse_html(target)):
            problems.append(f"{page.relative_to(out)}: no #{frag} in {target.relative_to(out)}")
    assert not problems, "\n".join(problems[:20])
    return seen


# --- headless Chromium over the DevTools protocol ------------------------------------------

def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium, driven over the Chrome DevTools Protocol with websocket-client.
    No browser download: the system's Chromium (Debian package `chromium`)."""

    def __init__(self, binary: str):
        import websocket  # websocket-client

        # The profile sits right under the system temp folder, not in pytest's deep tmp_path:
        # Chromium puts a Unix socket in it, and a socket path may be at most 107 bytes.
        self.profile = Path(tempfile.mkdtemp(prefix="pbem-chromium-"))
        args = [
            binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
            "--no-default-browser-check", "--remote-debugging-port=0", "--remote-allow-origins=*",
            f"--user-data-dir={self.profile}", "about:blank",
        ]
        # TMPDIR inside the profile: Chromium's scratch folders go when the profile does.
        env = {**os.environ, "TMPDIR": str(self.profile)}
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.time() + 30
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if self.proc.poll() is not None or time.time() > deadline:
                self.close()
                raise RuntimeError("chromium did not start")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        for _ in range(100):
            pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5))
            pages = [p for p in pages if p.get("type") == "page"]
            if pages:
                break
            time.sleep(0.05)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self._record(msg)

    def _record(self, msg: dict) -> None:
        self.events.append(msg)
        if msg["method"] == "Page.javascriptDialogOpening":
            # Never leave a dialog open (it would block the page); it is recorded.
            self.ws.send(json.dumps({"id": 10**9 + len(self.events), "method": "Page.handleJavaScriptDialog",
                                     "params": {"accept": True}}))

    def wait_for(self, method: str, timeout: float = 20) -> dict:
        deadline = time.time() + timeout
        start = len(self.events)
        while time.time() < deadline:
            for ev in self.events[start:]:
                if ev["method"] == method:
                    return ev
            self.ws.settimeout(max(0.05, deadline - time.time()))
            if time.time() >= deadline:
                break
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self._record(msg)
                if msg["method"] == method:
                    return msg
        raise TimeoutError(method)

    def open(self, url: str, width: int = 1280, height: int = 900, bypass_csp: bool = False) -> dict:
        """Load a page; return what went wrong on it: console errors, exceptions, failed
        loads, dialogs (alert/confirm/prompt), and images that did not load."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.call("Page.setBypassCSP", enabled=bypass_csp)
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        # Let late console messages and image decodes arrive.
        self.evaluate("new Promise(r => setTimeout(r, 150))", await_promise=True)
        broken = self.evaluate(
            "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
        report = {"console": [], "exceptions": [], "log": [], "failed": [], "dialogs": [], "broken_images": broken or []}
        for ev in self.events:
            m, p = ev["method"], ev.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                report["console"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                report["exceptions"].append(p.get("exceptionDetails", {}).get("text", "exception"))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                report["log"].append(f"{p['entry'].get('source')}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.loadingFailed":
                report["failed"].append(f"{p.get('errorText')} {p.get('type')}")
            elif m == "Page.javascriptDialogOpening":
                report["dialogs"].append(p.get("message", ""))
        return report

    def evaluate(self, expression: str, await_promise: bool = False):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in res:
            raise RuntimeError(f"evaluate failed: {res['exceptionDetails']}")
        return res.get("result", {}).get("value")

    def screenshot(self, path: Path, selector: str | None = None, full_page: bool = False) -> Path:
        params: dict = {"format": "png"}
        if selector:
            box = self.evaluate(
                f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                " e.scrollIntoView(); const r = e.getBoundingClientRect();"
                " return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height}; })()")
            assert box, f"nothing matches {selector}"
            params.update(clip={**box, "scale": 1}, captureBeyondViewport=True)
        elif full_page:
            metrics = self.call("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params.update(clip={"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 6000), "scale": 1},
                          captureBeyondViewport=True)
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            if getattr(self, "ws", None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def file_url(path: Path) -> str:
    return path.resolve().as_uri()


HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "../../etc"]


def injected(tree) -> list[str]:
    """Elements or attributes on a parsed page that only an injection would have put there."""
    bad = []
    for el in tree.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.split("}")[-1]
        if tag == "script":
            bad.append("script element")
        if tag == "img" and el.attrib.get("src") == "x":
            bad.append("img src=x")
        for name in el.attrib:
            if str(name).lower().startswith("on"):
                bad.append(f"{tag} has {name}")
    return bad


