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
