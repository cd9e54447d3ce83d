"""Feeds that work in any reader (issue 18): with --base-url every link of the Atom feed and
of the calendars is absolute (feed readers and calendar apps resolve nothing relative), the
files parse with well-kept libraries (feedparser, icalendar), and each player's own
calendar holds the deadlines of their turns, each with a reminder alarm."""

from __future__ import annotations

from datetime import timedelta

import feedparser
from icalendar import Calendar

BASE = "https://judge.example.org/pbem/"


def published(cli, tmp_path, *new_args):
    r = cli("new", "gods", "g1", "--seed", "f1", "-p", "ann", "-p", "bob", "--every", "72h", *new_args)
    assert r.exit_code == 0, r.output
    for _ in range(3):
        assert cli("resolve", "g1", "--force").exit_code == 0
    out = tmp_path / "site"
    r = cli("publish", "--out", out, "--base-url", BASE)
    assert r.exit_code == 0, r.output
    return out / "games" / "g1"


def test_the_atom_feed_parses_and_every_link_is_absolute(cli, tmp_path):
    folder = published(cli, tmp_path)
    feed = feedparser.parse((folder / "feed.atom").read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    assert len(feed.entries) == 4
    links = [feed.feed.link] + [lk["href"] for lk in feed.feed.links] + [e.link for e in feed.entries]
    assert all(link.startswith(BASE + "games/g1/") for link in links), links
    assert {e.link for e in feed.entries} == {f"{BASE}games/g1/turn-{n}.html" for n in range(1, 5)}


def test_the_calendar_parses_and_its_links_are_absolute(cli, tmp_path):
    folder = published(cli, tmp_path)
    cal = Calendar.from_ical((folder / "deadlines.ics").read_bytes())
    events = list(cal.walk("VEVENT"))
    assert len(events) == 1 + 4  # the start, and the deadline of every turn
    assert all(str(e["URL"]).startswith(BASE + "games/g1/") for e in events)
    assert not any(e.walk("VALARM") for e in events)  # the public calendar rings for nobody


def test_a_players_own_calendar_has_their_deadlines_each_with_an_alarm(cli, tmp_path):
    folder = published(cli, tmp_path)
    for who in ("ann", "bob"):
        cal = Calendar.from_ical((folder / f"deadlines-{who}.ics").read_bytes())
        deadlines = [e for e in cal.walk("VEVENT") if "due" in str(e["SUMMARY"])]
        # GODS is played in turns: each player's calendar holds the deadlines of their own
        assert deadlines and all("your orders" in str(e["SUMMARY"]) for e in deadlines)
        for e in deadlines:
            alarms = list(e.walk("VALARM"))
            assert len(alarms) == 1 and alarms[0]["TRIGGER"].dt == -timedelta(days=1)
            assert str(e["URL"]).startswith(BASE)
    ann = Calendar.from_ical((folder / "deadlines-ann.ics").read_bytes())
    bob = Calendar.from_ical((folder / "deadlines-bob.ics").read_bytes())
    both = len([e for e in ann.walk("VEVENT") if "due" in str(e["SUMMARY"])]) + \
        len([e for e in bob.walk("VEVENT") if "due" in str(e["SUMMARY"])])
    assert both == 4


def test_the_alarm_follows_the_games_remind_option(cli, tmp_path):
    folder = published(cli, tmp_path, "--option", "remind=6h")
    cal = Calendar.from_ical((folder / "deadlines-ann.ics").read_bytes())
    triggers = [a["TRIGGER"].dt for e in cal.walk("VEVENT") for a in e.walk("VALARM")]
    assert triggers and all(t == -timedelta(hours=6) for t in triggers)
