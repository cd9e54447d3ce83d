"""Findings of the fourth independent test (tester4) on deadlines and the GM's command line,
each through the installed `pbem` (a subprocess, as a GM runs it) and mail ingested as a
player sends it: 10 a deadline pbem sets (resume, rollback) moves out of a declared absence
of a player asked, one the GM sets is kept with a warning; 13 the command line's words."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from test_controls_cli import PBEM
from test_new_gm import eml, outbox_bodies


@pytest.fixture
def run(tmp_path):
    """The installed `pbem ARGS...` against a store in tmp_path (`now`: PBEM_NOW)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_NOW="2026-12-01T10:00:00Z",
               PBEM_FROM="judge@example.org")

    def pbem(*args, now=None):
        return subprocess.run([PBEM, *map(str, args)], check=False, capture_output=True, text=True, cwd=tmp_path,
                              timeout=120, env={**env, **({"PBEM_NOW": now} if now else {})})

    pbem.db, pbem.cwd = str(tmp_path / "pbem.db"), tmp_path
    return pbem


def _mail(run, name: str, sender: str, body: str, now: str | None = None) -> str:
    r = run("ingest", eml(run.cwd, name, sender, body, subject="Re: [d1] turn 1 report"), now=now)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def _deity(run) -> dict[str, str]:
    """Deity d1, ann and bob, a deadline every 48h at 20:00 UTC: both asked in the set-up turn."""
    r = run("new", "deity", "d1", "--seed", "5", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org",
            "--every", "48h", "--at", "20:00", "--tz", "UTC")
    assert r.returncode == 0, r.stderr
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def _starts(run, seat: str) -> str:
    report = run("report", "d1", "--player", seat).stdout
    return "\n".join(re.findall(r"^#   (start \S+)$", report, re.MULTILINE))


def _status(run, now=None) -> dict:
    return json.loads(run("status", "d1", "--json", now=now).stdout)["games"][0]


# --- 10: deadlines and declared absences ---------------------------------------------------------

def test_resume_moves_the_deadline_out_of_a_declared_absence(run):
    """bob declares Dec 5-7 absent (to Dec 8 00:00); paused on Dec 1 with 58h left, resumed on
    Dec 3: now + 58h is Dec 5 20:00, inside the absence, so the deadline is Dec 8 00:00 and
    a cron run on Dec 5 21:00 resolves nothing (bob used to be NMR)."""
    pw = _deity(run)
    assert "ABSENT" in _mail(run, "a1", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nABSENT FROM 2026-12-05 TO 2026-12-07")
    assert run("pause", "d1").returncode == 0
    r = run("resume", "d1", now="2026-12-03T10:00:00Z")
    assert r.returncode == 0, r.stderr
    assert "deadline 2026-12-08T00:00:00Z (moved to the end of bob's declared absence" in r.stdout, r.stdout
    assert "declared absence, which runs from" in r.stdout, r.stdout  # the range is the absence's, not the deadline's
    assert _status(run)["deadline"] == "2026-12-08T00:00:00Z"
    told = [b for b in outbox_bodies(run.cwd, to="ann@example.org") if "has resumed" in b]
    assert told and "(2026-12-08T00:00:00Z), the end of a player's declared absence." in told[-1], told
    _mail(run, "o1", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\n{_starts(run, 'ann')}", now="2026-12-03T11:00:00Z")
    r = run("resolve", "--all", now="2026-12-05T21:00:00Z")
    assert "resolved" not in r.stdout, r.stdout
    assert _status(run, now="2026-12-05T21:00:00Z")["turn"] == 1
    r = run("resolve", "--all", now="2026-12-08T00:01:00Z")  # after the absence the defaults apply, as always
    assert "d1 turn 1: resolved (NMR: bob)" in r.stdout, r.stdout


def test_a_rollback_fresh_deadline_moves_out_of_a_declared_absence(run):
    pw = _deity(run)
    _mail(run, "a1", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nABSENT FROM 2026-12-04 TO 2026-12-07")
    _mail(run, "o1", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\n{_starts(run, 'ann')}")
    _mail(run, "o2", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\n{_starts(run, 'bob')}")
    assert "d1 turn 1: resolved" in run("resolve", "--all").stdout
    r = run("rollback", "d1", "--to", "1", now="2026-12-04T12:00:00Z")
    assert r.returncode == 0, r.stderr
    # the schedule's fresh deadline is Dec 6 20:00, inside bob's absence (to Dec 8 00:00)
    assert "turn 1's deadline is 2026-12-08T00:00:00Z: moved to the end of bob's declared absence" in r.stdout, r.stdout
    assert _status(run)["deadline"] == "2026-12-08T00:00:00Z"
    notice = [b for b in outbox_bodies(run.cwd, to="ann@example.org") if "correction" in b or "set game d1 back" in b]
    assert notice and "(2026-12-08T00:00:00Z)" in notice[-1], notice
    assert "declared absence (ABSENT)" in run("rollback", "--help").stdout


def test_a_deadline_the_gm_sets_inside_an_absence_is_kept_with_a_warning(run):
    pw = _deity(run)
    _mail(run, "a1", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nABSENT FROM 2026-12-05 TO 2026-12-07")
    r = run("deadline", "d1", "--at", "2026-12-06 12:00")
    assert r.returncode == 0, r.stderr
    assert "deadline 2026-12-06T12:00:00Z" in r.stdout
    assert r.stderr.startswith("pbem: warning: d1: the deadline Sun 06 Dec 2026 12:00 UTC") and "inside bob's declared absence" in r.stderr
    assert "(from Sat 05 Dec 2026 00:00 UTC" in r.stderr and "to Tue 08 Dec 2026 00:00 UTC" in r.stderr and "pbem deadline d1 --at" in r.stderr
    assert _status(run)["deadline"] == "2026-12-06T12:00:00Z"  # the GM's time stands
    r = run("deadline", "d1", "--extend", "3d")  # Dec 9 12:00: after the absence, no warning
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert run("pause", "d1").returncode == 0
    r = run("resume", "d1", "--at", "2026-12-07 08:00")
    assert r.returncode == 0 and "deadline 2026-12-07T08:00:00Z" in r.stdout, r.stdout
    assert "inside bob's declared absence" in r.stderr, r.stderr
    assert "moved to the end" not in r.stdout
    assert "with a warning naming the player" in run("deadline", "--help").stdout


# --- 13: the command line's words ------------------------------------------------------------------

def _clean(r, says: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith("pbem: ") and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def _gods(run, gid="g", *extra) -> None:
    r = run("new", "gods", gid, "-p", "a:a@example.org", "-p", "b:b@example.org", *extra)
    assert r.returncode == 0, r.stderr


def test_send_dry_run_onto_a_file_says_it_must_be_a_folder(run):
    _gods(run)
    (run.cwd / "afile").write_text("mine\n")
    _clean(run("send", "--dry-run", "afile"), "--dry-run afile is a file, not a folder")
    _clean(run("send", "--dry-run", "afile/out"), "a part of that path is a file")
    assert (run.cwd / "afile").read_text() == "mine\n"
    r = run("send", "--dry-run", "out")
    assert r.returncode == 0 and "2 messages written to out" in r.stdout, r.stdout + r.stderr


def test_a_backup_onto_the_store_says_so_at_once(run):
    _gods(run)
    for args in (("backup", "pbem.db"), ("backup", "pbem.db", "--force")):
        _clean(run(*args), "pbem.db is the store itself: a backup cannot replace it (not even with --force)")
    assert "--force" not in run("backup", "pbem.db").stderr.split("(not even")[0]
    r = run("backup", "copy.db")
    assert r.returncode == 0 and "backed up" in r.stdout


def test_reaction_deadline_is_refused_for_a_game_that_asks_no_reaction_live(run):
    _gods(run)
    _clean(run("set", "g", "reaction_deadline", "5h"), "game 'g' (GODS) never asks a player a reaction live")
    assert json.loads(run("status", "g", "--json").stdout)["games"][0]["turn"] == 1
    r = run("set", "g", "reaction_deadline", "off")  # turning it off is always fine
    assert r.returncode == 0, r.stderr
    _clean(run("new", "gods", "g2", "-p", "a", "-p", "b", "--reaction-deadline", "5h"), "never asks a player a reaction live")
    _clean(run("new", "ohgods", "o2", "-p", "a", "-p", "b", "--option", "reaction_deadline=5h"), "(Oh Gods!) never asks")
    _clean(run("new", "gods", "g3", "--open", "3", "--option", "reaction_deadline=5h"), "never asks a player a reaction live")
    assert "g2" not in run("list").stdout and "g3" not in run("list").stdout
    # the games that do ask one take it
    r = run("new", "ohgods", "o1", "-p", "a", "-p", "b", "--option", "reactions=ask", "--reaction-deadline", "5h")
    assert r.returncode == 0, r.stderr
    assert run("set", "o1", "reaction_deadline", "6h").returncode == 0
    assert run("new", "faith", "f1", "-p", "a", "-p", "b", "--reaction-deadline", "5h").returncode == 0
    _clean(run("new", "faith", "f2", "-p", "a", "-p", "b", "--option", "battles=standing", "--reaction-deadline", "5h"),
           "(Faith - Wild Gods) never asks")
    r = run("new", "deity", "d2", "-p", "a", "-p", "b", "--option", "reactions=ask", "--option", "reaction_deadline=5h")
    assert r.returncode == 0, r.stderr


def test_set_on_a_finished_game_is_refused_and_mails_nobody(run):
    _gods(run)
    assert run("autoplay", "g", "--force").returncode == 0
    before = len(outbox_bodies(run.cwd))
    _clean(run("set", "g", "grace", "12h"), "game 'g' is over; cannot change its option grace")
    assert len(outbox_bodies(run.cwd)) == before
    assert "(not of one that is over)" in " ".join(run("set", "--help").stdout.split())


def test_the_gm_seats_a_player_in_a_game_open_for_sign_up(run):
    assert run("new", "gods", "o", "--open", "2").returncode == 0
    _clean(run("join", "o", "zed"), "game 'o' is open for sign-up: a player seated there needs an address")
    r = run("join", "o", "zed:zed@example.org")
    assert r.returncode == 0, r.stderr
    assert "o: zed has a seat (1 of 2 taken); password " in r.stdout and "goes to zed@example.org when the game starts" in r.stdout
    password = re.search(r"password (\S+);", r.stdout).group(1)
    _clean(run("join", "o", "zed:zed@example.org"), "zed@example.org has already joined game 'o' as zed")
    r = run("join", "o", "amy:amy@example.org")
    assert r.returncode == 0 and "the game is full and has started" in r.stdout, r.stdout + r.stderr
    st = json.loads(run("status", "o", "--json").stdout)["games"][0]
    assert st["status"] == "running" and sorted(p["name"] for p in st["players"]) == ["amy", "zed"]
    assert any(password in b for b in outbox_bodies(run.cwd, to="zed@example.org"))  # the turn-1 report carries it
    assert "a game open for sign-up" in run("join", "--help").stdout


def test_the_grace_period_is_shown_to_the_gm_and_resolve_says_it(run):
    _gods(run, "g", "--every", "24h", "--at", "20:00", "--tz", "UTC", "--option", "grace=12h")
    st = json.loads(run("status", "g", "--json").stdout)["games"][0]
    assert st["deadline"] == "2026-12-02T20:00:00Z" and st["grace_ends"] == "2026-12-03T08:00:00Z"
    assert "(then a grace period until 2026-12-03T08:00:00Z)" in run("status", "g").stdout
    late = "2026-12-02T21:00:00Z"
    r = run("resolve", "--all", now=late)
    assert r.returncode == 0 and "before its deadline or in its grace period" in r.stdout, r.stdout
    assert ("g turn 1: the deadline 2026-12-02T20:00:00Z has passed; in its grace period until 2026-12-03T08:00:00Z, "
            "then the missing players' default orders apply") in r.stdout
    r = run("resolve", "g", now=late)
    assert "in its grace period until 2026-12-03T08:00:00Z" in r.stdout, r.stdout
    assert "(PASSED; in its grace period until 2026-12-03T08:00:00Z" in run("status", "g", now=late).stdout
    assert "grace until 2026-12-03T08:00:00Z" in run("list", now=late).stdout
    assert json.loads(run("list", "--json").stdout)["games"][0]["grace_ends"] == "2026-12-03T08:00:00Z"
    r = run("resolve", "--all", now="2026-12-03T08:00:00Z")
    assert "g turn 1: resolved (NMR: a)" in r.stdout, r.stdout


def test_seat_human_on_a_vacant_seat_says_it_has_no_player(run):
    pw = _deity(run)
    _mail(run, "r1", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nRESIGN")
    _clean(run("seat", "d1", "bob", "--human"), "seat 'bob' has no player (they resigned): `pbem replace d1 bob")
