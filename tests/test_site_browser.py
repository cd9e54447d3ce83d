"""The published site in a real browser: headless Chromium (Debian's `chromium`, which
.ci/run installs when missing), driven over the Chrome DevTools Protocol. A page fails on
any console error or warning, uncaught exception, failed load, dialog, or image that did
not load. Screenshots of the index, a turn page and the maps are checked in the test's temp
folder (PBEM_SCREENSHOTS=DIR keeps a copy to look at).

And hostile input: players and games named `<script>alert(1)</script>`,
`"><img src=x onerror=alert(1)>` and `../../etc`. `pbem new` refuses such names; put
straight into the store they are published escaped, write nothing outside --out, and run
no script in the browser (checked with the page's Content-Security-Policy switched off, so
that escaping alone must stop them)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest
from test_site_lib import (HOSTILE, SCREENSHOTS, Browser, chromium_binary, crawl, file_url, injected, make_game,
                           png_size, shared_site, text_of)

from pbem.host import service as host_service
from pbem.render import html as render_html
from pbem.site import publish as site_publish
from pbem import host
from pbem.core.errors import PbemError
from pbem.host.store import open_db


@pytest.fixture(scope="module")
def browser():
    binary = chromium_binary()
    assert binary, "headless Chromium is needed: apt-get install -y chromium (`make test` does it when run as root)"
    b = Browser(binary)
    yield b
    b.close()


def _clean(report: dict) -> bool:
    return not any(report.values())


def test_the_browser_check_catches_errors_missing_images_and_alerts(browser, tmp_path):
    """The checker itself: a page with a broken image, a console error and an alert fails."""
    (tmp_path / "bad.html").write_text(
        '<!DOCTYPE html><title>bad</title><img src="missing.png" alt="m">'
        '<script>console.error("boom"); alert("hi")</script>', encoding="utf-8")
    (tmp_path / "good.html").write_text("<!DOCTYPE html><title>good</title><p>fine</p>", encoding="utf-8")
    bad = browser.open(file_url(tmp_path / "bad.html"))
    assert bad["broken_images"] and bad["console"] == ["boom"] and bad["dialogs"] == ["hi"] and bad["failed"]
    assert _clean(browser.open(file_url(tmp_path / "good.html")))


def test_the_site_in_chromium_no_errors_and_screenshots(browser, tmp_path):
    shared = shared_site()
    out = shared["out"]
    shots = tmp_path / "screenshots"
    pages = [out / "index.html"]
    for gtype, g in shared["games"].items():
        for gid in g.values():
            d = out / "games" / render_html.slug_for(gid)
            pages += [d / "index.html", d / "turn-1.html", max(d.glob("turn-*.html"), key=lambda p: int(p.stem[5:]))]
            if (d / "result.html").exists():
                pages.append(d / "result.html")
            if (d / "map.svg").exists():
                pages.append(d / "map.svg")
    for page in pages:
        report = browser.open(file_url(page))
        assert _clean(report), (page.relative_to(out), report)
    taken = []
    browser.open(file_url(out / "index.html"))
    taken.append(browser.screenshot(shots / "index.png"))
    assert browser.evaluate("document.images.length") >= 1  # the maps' thumbnails, all loaded (checked above)
    for gtype, g in shared["games"].items():
        # the longer of the two games, two thirds of the way in
        d = max((out / "games" / render_html.slug_for(gid) for gid in g.values()), key=lambda d: len(list(d.glob("turn-*.html"))))
        n = len(list(d.glob("turn-*.html")))
        page = d / f"turn-{max(1, n * 2 // 3)}.html"
        assert _clean(browser.open(file_url(page)))
        taken.append(browser.screenshot(shots / f"{gtype}-turn.png", full_page=True))
        if browser.evaluate("document.querySelector('figure.map svg') !== null"):
            size = browser.evaluate("(() => { const r = document.querySelector('figure.map svg').getBoundingClientRect();"
                                    " return [r.width, r.height]; })()")
            assert size[0] > 200 and size[1] > 150, size
            taken.append(browser.screenshot(shots / f"{gtype}-map.png", selector="figure.map svg"))
        if browser.evaluate("document.querySelector('figure.chart svg') !== null"):
            taken.append(browser.screenshot(shots / f"{gtype}-chart.png", selector="figure.chart svg"))
    for shot in taken:
        w, h = png_size(shot)
        assert w >= 200 and h >= 100 and shot.stat().st_size > 3000, shot
    if SCREENSHOTS is not None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for shot in taken:
            shutil.copy(shot, SCREENSHOTS / shot.name)
    assert (shots / "index.png").is_file()
    assert any(p.name.endswith("-map.png") for p in taken) and any(p.name.endswith("-turn.png") for p in taken)


# --- hostile input ---------------------------------------------------------------------------

def test_pbem_new_refuses_hostile_names(db, cli):
    for name in HOSTILE:
        with pytest.raises(PbemError):
            host.new_game(db, "gods", "g1", [name, "bob"], turns=None)
        with pytest.raises(PbemError):
            host.new_game(db, "gods", name, ["alice", "bob"], turns=None)
        r = cli("new", "gods", "g2", "--player", name, "--player", "bob")
        assert r.exit_code == 1 and "not allowed" in r.stderr
        r = cli("new", "gods", name, "--player", "alice", "--player", "bob")
        assert r.exit_code == 1 and "not allowed" in r.stderr


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Games whose ids and players carry the hostile names, put into the store directly
    (the name check bypassed, as a tampered or imported store would hold them)."""
    root = tmp_path_factory.mktemp("hostile")
    work = root / "a" / "b"
    work.mkdir(parents=True)
    db = open_db(str(root / "pbem.db"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(host_service, "_check_name", lambda kind, value: value)
        mp.setattr(host_service, "check_seat_name", lambda value, kind="player name": value)
        for i, gid in enumerate(HOSTILE):
            make_game(db, "gods", gid, seed=f"h{i}", finished=(i == 0), running_turns=3, players=list(HOSTILE),
                      sched={"every": "24h", "at": None, "tz": "UTC"})
    before = {p for p in root.rglob("*")}
    out = work / "site"
    result = site_publish.publish(db, out)
    after = {p for p in root.rglob("*")}
    return {"root": root, "db": db, "out": out, "result": result, "created": after - before}


def test_hostile_names_create_nothing_outside_the_output_folder(hostile):
    out = hostile["out"].resolve()
    outside = [p for p in hostile["created"] if not p.resolve().is_relative_to(out)
               and not p.name.startswith("pbem.db")]
    assert outside == []
    assert not (hostile["root"] / "etc").exists() and not (hostile["root"] / "a" / "etc").exists()
    for rel in hostile["result"].written:
        assert (out / rel).resolve().is_relative_to(out)
    assert sorted(p.name for p in (out / "games").iterdir()) == sorted(render_html.slug_for(g) for g in HOSTILE)


def test_hostile_names_are_escaped_in_every_page(hostile):
    out = hostile["out"]
    pages = crawl(out)  # strict HTML parse of every page, every link resolves inside the site
    shown = set()
    for path, tree in pages.items():
        assert injected(tree) == [], path
        text = text_of(tree)
        shown |= {name for name in HOSTILE if name in text}
    assert shown == set(HOSTILE)
    for f in list(out.rglob("*.svg")) + list(out.rglob("*.atom")):
        root = ET.parse(f).getroot()  # well-formed XML: nothing broke out of an attribute or text
        for el in root.iter():
            assert not el.tag.endswith("script") and not any(a.lower().startswith("on") for a in el.attrib), f
    feed_text = "".join(ET.parse(next(out.rglob("feed.atom"))).getroot().itertext())
    assert any(n in feed_text for n in HOSTILE)
    for f in out.rglob("turn-*.json"):
        raw = f.read_bytes()
        assert b"<" not in raw and b">" not in raw, f  # escaped as \u003c: inert even served as HTML
        assert {p["name"] for p in json.loads(raw)["game"]["players"]} == set(HOSTILE)


def test_hostile_names_run_no_script_in_the_browser(browser, hostile):
    out = hostile["out"]
    pages = [out / "index.html"]
    for d in sorted((out / "games").iterdir()):
        pages += [d / "index.html", d / "turn-1.html", d / "turn-3.html"]
        if (d / "result.html").exists():
            pages.append(d / "result.html")
        pages.append(d / "map.svg")
    for page in pages:
        report = browser.open(file_url(page), bypass_csp=True)
        assert _clean(report), (page, report)
        found = browser.evaluate(
            "[document.querySelectorAll('script').length,"
            " document.querySelectorAll('img[src=\"x\"], [onerror], [onload]').length,"
            " document.documentElement.textContent]")
        assert found[0] == 0 and found[1] == 0, (page, found[:2])
        if page.suffix == ".html":
            assert any(name in found[2] for name in HOSTILE), page
