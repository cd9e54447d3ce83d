"""Findings of the fourth independent test (tester4) on the GM's controls, each through the
installed `pbem` (a subprocess, as a GM runs it) or a mail ingested as a player sends it:
02 no rollback of a finished game (its seed is public), 03 a WAIT leaves with the person who
sent it, 05 an absence charges only the days not declared before, 06 DRAW/CONCEDE votes stand
across a round of turns, 09 a rollback across a `pbem join` (Faith)."""

from __future__ import annotations

import json
import re

import pytest
from test_controls_cli import clean_failure, run  # noqa: F401  (the fixture)


def _finished(run, gid, *extra):
    r = run("new", "ohgods", gid, "--seed", "4242", "-p", "a:a@example.org", "-p", "b:b@example.org",
            "-p", "c:c@example.org", *extra)
    assert r.returncode == 0, r.stderr
    return r


# --- 02: a finished game is never rolled back --------------------------------------------------

def test_a_finished_game_is_not_rolled_back_its_seed_is_public(run):
    _finished(run, "o1")
    r = run("autoplay", "o1", "--force")
    assert r.returncode == 0, r.stderr
    st = json.loads(run("status", "o1", "--json").stdout)["games"][0]
    assert st["status"] == "finished" and st["seed"] == "4242"
    clean_failure(run, ("rollback", "o1", "--to", "3"), "game 'o1' is over and its seed was revealed when it ended")
    r = run("rollback", "o1", "--to", "3")
    assert "cannot roll back to turn 3 and be played on" in r.stderr and "start a new game" in r.stderr
    st = json.loads(run("status", "o1", "--json").stdout)["games"][0]
    assert st["status"] == "finished" and st["seed"] == "4242"
    r = run("replay", "o1", "--verify")
    assert r.returncode == 0 and "every hash matches" in r.stdout


def test_a_game_ended_by_the_gm_is_not_rolled_back(run):
    _finished(run, "o2")
    assert run("autoplay", "o2", "--max-phases", "5", "--force").returncode == 0
    r = run("end", "o2", "--draw", "--reason", "agreed")
    assert r.returncode == 0, r.stderr
    clean_failure(run, ("rollback", "o2", "--to", "3"), "its seed was revealed when it ended")
    assert "A finished game is refused" in run("rollback", "--help").stdout
    r = run("replay", "o2", "--verify")
    assert r.returncode == 0 and "every hash matches" in r.stdout
