"""Findings of the fourth independent test (tester4) on the GM's controls, each through the
installed `pbem` (a subprocess, as a GM runs it) or a mail ingested as a player sends it:
02 no rollback of a finished game (its seed is public), 03 a WAIT leaves with the person who
sent it, 05 an absence charges only the days not declared before, 06 DRAW/CONCEDE votes stand
across a round of turns, 09 a rollback across a `pbem join` (Faith)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from faith_helpers import autoplay_to
from test_controls_cli import PBEM, clean_failure


@pytest.fixture
def run(tmp_path):
    """The installed `pbem ARGS...` against a store in tmp_path (`now`: PBEM_NOW)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_NOW="2026-12-01T10:00:00Z",
               PBEM_FROM="judge@example.org")

    def pbem(*args, now=None, input=None):
        return subprocess.run([PBEM, *map(str, args)], check=False, capture_output=True, text=True, cwd=tmp_path,
                              timeout=120, input=input, env={**env, **({"PBEM_NOW": now} if now else {})})

    pbem.db, pbem.cwd = str(tmp_path / "pbem.db"), tmp_path
    return pbem


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


# --- 09: a rollback across a `pbem join` -------------------------------------------------------

def test_a_rollback_to_before_a_join_is_refused_and_one_to_the_join_turn_replays(run):
    """Faith takes a new god in its Negotiation phase (`pbem join`). A rollback to a turn
    before the join is refused with the reason and the turn to go to instead (it used to drop
    the seat from the game when play went on and fail `replay --verify`); one to the join's own
    turn keeps the seat and the store replays, hash for hash, after play goes on."""
    assert run("new", "faith", "f1", "-p", "a", "-p", "b", "-p", "c", "--seed", "31").returncode == 0
    db, joined = autoplay_to(run, "f1", "negotiation", most=60)
    r = run("join", "f1", "newbie")
    assert r.returncode == 0, r.stderr
    assert run("autoplay", "f1", "--max-phases", "3", "--force").returncode == 0
    clean_failure(run, ("rollback", "f1", "--to", joined - 2),
                  f"game 'f1': a new seat joined after turn {joined - 2} (newbie in turn {joined}, `pbem join`)")
    r = run("rollback", "f1", "--to", joined - 2)
    assert f"Roll back to turn {joined} or later" in r.stderr
    r = run("rollback", "f1", "--to", joined)
    assert r.returncode == 0 and f"back at turn {joined}" in r.stdout, r.stderr
    assert run("autoplay", "f1", "--max-phases", "4", "--force").returncode == 0
    st = json.loads(run("status", "f1", "--json").stdout)["games"][0]
    assert "newbie" in st["scores"]
    r = run("replay", "f1", "--verify")
    assert r.returncode == 0 and "every hash matches" in r.stdout, r.stdout + r.stderr


# --- 03: a WAIT (and a vote) leaves with the person who sent it ----------------------------------

def _mail(run, name: str, sender: str, body: str, game: str = "d1") -> str:
    from test_new_gm import eml

    r = run("ingest", eml(run.cwd, name, sender, body, subject=f"Re: [{game}] turn 1 report"))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def _bodies(run, to: str) -> list[str]:
    from test_new_gm import outbox_bodies

    return outbox_bodies(run.cwd, to=to)


def _deity(run, *players) -> dict[str, str]:
    r = run("new", "deity", "d1", "--seed", "5", *[a for p in players for a in ("-p", f"{p}:{p}@example.org")],
            "--every", "48h")
    assert r.returncode == 0, r.stderr
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def _starts(run, seat: str) -> str:
    """Every starting hex the seat's order form offers, as its list of preferences."""
    report = run("report", "d1", "--player", seat).stdout
    return "\n".join(m for m in re.findall(r"^#   (start \S+)$", report, re.MULTILINE))


def test_a_wait_leaves_with_a_player_who_resigns(run):
    pw = _deity(run, "ann", "bob", "cat")
    _mail(run, "w1", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nWAIT")
    _mail(run, "w2", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nRESIGN")
    assert "Your WAIT for turn 1 is withdrawn." in _bodies(run, "bob@example.org")[-1]
    told = [b for b in _bodies(run, "ann@example.org") if "has resigned" in b]
    assert told and "Their WAIT for turn 1 is withdrawn." in told[-1], told
    assert json.loads(run("status", "d1", "--json").stdout)["games"][0]["waiting"] == []
    _mail(run, "w3", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\n{_starts(run, 'ann')}")
    _mail(run, "w4", "cat@example.org", f"PLAYER cat\nPASSWORD {pw['cat']}\n{_starts(run, 'cat')}")
    r = run("resolve", "--all")
    assert "d1 turn 1: resolved" in r.stdout, r.stdout + r.stderr


def test_a_wait_leaves_with_a_player_the_gm_replaces_and_the_newcomer_is_told(run):
    pw = _deity(run, "ann", "bob")
    _mail(run, "r1", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\nWAIT")
    r = run("replace", "d1", "ann", "zed:zed@example.org")
    assert r.returncode == 0, r.stderr
    zed = r.stdout.split()[-1]
    welcome = _bodies(run, "zed@example.org")[-1]
    assert "ann's WAIT for turn 1 is withdrawn. Send your own (WAIT, DRAW, CONCEDE, ABSENT) if you want one." in welcome
    assert "Your WAIT for turn 1 is withdrawn." in _bodies(run, "ann@example.org")[-1]
    told = [b for b in _bodies(run, "bob@example.org") if "zed plays the seat ann" in b][-1]
    assert "ann's WAIT for turn 1 is withdrawn. A WAIT, a vote or an absence is its sender's own" in told, told
    _mail(run, "r2", "zed@example.org", f"PLAYER zed\nPASSWORD {zed}\n{_starts(run, 'ann')}")
    _mail(run, "r3", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\n{_starts(run, 'bob')}")
    r = run("resolve", "--all")
    assert "d1 turn 1: resolved" in r.stdout, r.stdout + r.stderr


# --- 05: an absence charges only the days not declared before ------------------------------------

def test_a_deadline_the_leavers_absence_moved_stays_and_everyone_is_told_so(run):
    """The re-check of finding 03: bob's absence moved the set-up turn's deadline (Dec 3 20:00
    -> Dec 8 00:00); he resigns. The deadline stays where everyone was told it is, and the
    notices say so rather than leaving the others to wonder."""
    pw = _deity(run, "ann", "bob", "cat")
    _mail(run, "ab", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nABSENT FROM 2026-12-03 TO 2026-12-07")
    assert json.loads(run("status", "d1", "--json").stdout)["games"][0]["deadline"] == "2026-12-08T00:00:00Z"
    _mail(run, "rs", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nRESIGN")
    told = [b for b in _bodies(run, "ann@example.org") if "has resigned" in b]
    assert told and "turn 1's deadline, moved to its end, stays there as announced" in told[-1], told
    assert "stays there as announced" in _bodies(run, "bob@example.org")[-1]
    assert json.loads(run("status", "d1", "--json").stdout)["games"][0]["deadline"] == "2026-12-08T00:00:00Z"


def _absent(run, n: int, pw: str, line: str) -> str:
    _mail(run, f"a{n}", "bob@example.org", f"PLAYER bob\nPASSWORD {pw}\n{line}", game="g")
    return _bodies(run, "bob@example.org")[-1]


def test_overlapping_and_repeated_absences_are_charged_once_a_day(run):
    r = run("new", "gods", "g", "--seed", "11", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org", "--every", "72h",
            "--option", "absences=5")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))["bob"]
    said = _absent(run, 1, pw, "ABSENT FROM 2026-12-10 TO 2026-12-12")
    assert "(3 of your 5 days used, 2 left)" in said, said
    said = _absent(run, 2, pw, "ABSENT FROM 2026-12-11 TO 2026-12-13")  # only the 13th is new
    assert "(4 of your 5 days used, 1 left; 1 new day charged, the rest was declared already)" in said, said
    said = _absent(run, 3, pw, "ABSENT FROM 2026-12-10 TO 2026-12-12")  # a resend
    assert "you are declared absent already; nothing new is recorded or charged (4 of your 5 days used, 1 left)" in said
    said = _absent(run, 4, pw, "ABSENT FROM 2026-12-24 TO 2026-12-24")  # a real new day: the last one allowed
    assert "(5 of your 5 days used, 0 left)" in said and "That is all your allowance" not in said, said
    said = _absent(run, 5, pw, "ABSENT FROM 2026-12-28 TO 2026-12-29")  # none left: refused, not "done"
    assert "REFUSED" in said and "you have used all 5 days of absence this game allows; nothing was recorded" in said
    assert "done: ABSENT" not in said, said
    said = _absent(run, 6, pw, "ABSENT FROM 2026-12-11 TO 2026-12-11")  # covered already: still answered as such
    assert "declared absent already" in said and "REFUSED" not in said, said


# --- 06: DRAW/CONCEDE votes stand across turns ----------------------------------------------------

def test_a_draw_proposed_with_ones_own_move_in_a_turn_by_turn_game(run):
    """GODS: a turn is one player's move. ann's DRAW, sent with the orders that end her turn,
    stands; bob is told of it by mail and agrees on his turn: the game ends drawn. A vote that
    nobody takes up lapses once the others have had their turn, and its sender is told."""
    r = run("new", "gods", "g", "--seed", "11", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org", "--every", "72h")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    move = re.search(r"^#   (tribe [^\n]+)$", run("report", "g", "--player", "ann").stdout, re.MULTILINE).group(1)
    _mail(run, "d1", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\nDRAW\n{move}", game="g")
    ack = _bodies(run, "ann@example.org")
    assert any("your vote for a draw is recorded; it stands until you send NODRAW" in b for b in ack), ack
    assert "g turn 1: resolved" in run("resolve", "--all").stdout
    told = [b for b in _bodies(run, "bob@example.org") if "ann votes to end game g drawn (turn 1)" in b]
    assert told and "still to vote: bob" in told[0] and "send DRAW with your password to agree" in told[0], told
    _mail(run, "d2", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nDRAW", game="g")
    assert any("every player has voted for a draw; game g is over, drawn" in b for b in _bodies(run, "bob@example.org"))
    st = json.loads(run("status", "g", "--json").stdout)["games"][0]
    assert st["status"] == "finished" and st["winners"] == ["ann", "bob"]


def test_a_vote_nobody_takes_up_lapses_and_its_sender_is_told(run):
    r = run("new", "gods", "g", "--seed", "11", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org", "--every", "72h")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    _mail(run, "l1", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\nDRAW", game="g")
    assert run("autoplay", "g", "--max-phases", "1", "--force").returncode == 0  # ann's turn
    assert not [b for b in _bodies(run, "ann@example.org") if "has lapsed" in b]
    assert run("autoplay", "g", "--max-phases", "1", "--force").returncode == 0  # bob's turn, no vote
    lapsed = [b for b in _bodies(run, "ann@example.org") if "has lapsed" in b]
    assert lapsed and "Your vote for a draw in game g, sent in turn 1, has lapsed" in lapsed[0], lapsed
    _mail(run, "l2", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nDRAW", game="g")
    assert any("still to vote: ann" in b for b in _bodies(run, "bob@example.org"))
    # withdrawn by its sender: the other is told, and the vote no longer counts
    _mail(run, "l3", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nNODRAW", game="g")
    assert any("NODRAW: your vote for a draw (sent in turn 3) is withdrawn" in b for b in _bodies(run, "bob@example.org"))
    assert any("bob withdraws their vote for a draw" in b for b in _bodies(run, "ann@example.org"))
    _mail(run, "l4", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\nDRAW", game="g")
    assert json.loads(run("status", "g", "--json").stdout)["games"][0]["status"] == "running"


def test_faith_votes_stand_through_the_next_turn(run):
    """Faith: every god plays every turn. A vote sent in one turn stands through the next, so
    the others can answer it once their report has told them; a concession likewise."""
    r = run("new", "faith", "f", "-p", "a:a@example.org", "-p", "b:b@example.org", "-p", "c:c@example.org",
            "--seed", "77")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    _mail(run, "f1", "a@example.org", f"PLAYER a\nPASSWORD {pw['a']}\nDRAW", game="f")
    assert any("a votes to end game f drawn (turn 1)" in b for b in _bodies(run, "c@example.org"))
    assert run("autoplay", "f", "--max-phases", "1", "--force").returncode == 0  # turn 1 resolves: a's vote stands
    _mail(run, "f2", "b@example.org", f"PLAYER b\nPASSWORD {pw['b']}\nDRAW", game="f")
    assert any("still to vote: c" in b for b in _bodies(run, "b@example.org"))
    st = json.loads(run("status", "f", "--json").stdout)["games"][0]
    assert st["votes"] == {"a": {"kind": "draw", "turn": 1}, "b": {"kind": "draw", "turn": 2}}
    assert "a votes DRAW (since turn 1); b votes DRAW (since turn 2)" in run("status", "f").stdout
    _mail(run, "f3", "c@example.org", f"PLAYER c\nPASSWORD {pw['c']}\nDRAW", game="f")
    st = json.loads(run("status", "f", "--json").stdout)["games"][0]
    assert st["status"] == "finished" and sorted(st["winners"]) == ["a", "b", "c"]


def test_faith_a_vote_lapses_after_the_next_turn(run):
    r = run("new", "faith", "f", "-p", "a:a@example.org", "-p", "b:b@example.org", "--seed", "77")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    _mail(run, "g1", "a@example.org", f"PLAYER a\nPASSWORD {pw['a']}\nCONCEDE", game="f")
    assert run("autoplay", "f", "--max-phases", "1", "--force").returncode == 0
    assert not [b for b in _bodies(run, "a@example.org") if "has lapsed" in b]
    assert run("autoplay", "f", "--max-phases", "1", "--force").returncode == 0
    lapsed = [b for b in _bodies(run, "a@example.org") if "has lapsed" in b]
    assert lapsed and "Your concession in game f, sent in turn 1, has lapsed" in lapsed[0], lapsed


def test_when_the_only_player_not_voting_resigns_the_standing_votes_end_the_game(run):
    r = run("new", "gods", "g", "--seed", "11", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org", "-p", "cat:cat@example.org",
            "--every", "72h")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    _mail(run, "v1", "ann@example.org", f"PLAYER ann\nPASSWORD {pw['ann']}\nDRAW", game="g")
    _mail(run, "v2", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nDRAW", game="g")
    assert json.loads(run("status", "g", "--json").stdout)["games"][0]["status"] == "running"
    _mail(run, "v3", "cat@example.org", f"PLAYER cat\nPASSWORD {pw['cat']}\nRESIGN", game="g")
    said = _bodies(run, "cat@example.org")[-1]
    assert "The votes of the players still playing end the game now: it is over, drawn." in said, said
    st = json.loads(run("status", "g", "--json").stdout)["games"][0]
    assert st["status"] == "finished" and st["winners"] == ["ann", "bob", "cat"]


def test_a_declared_absence_leaves_with_the_player_the_gm_replaces(run):
    r = run("new", "gods", "g", "--seed", "11", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org", "--every", "72h",
            "--option", "absences=5")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    assert "(5 of your 5 days used, 0 left)" in _absent(run, 1, pw["bob"], "ABSENT FROM 2026-12-10 TO 2026-12-14")
    r = run("replace", "g", "bob", "zed:zed@example.org")
    assert r.returncode == 0, r.stderr
    zed = r.stdout.split()[-1]
    welcome = _bodies(run, "zed@example.org")[-1]
    assert "bob's absence from Thu 10 Dec 2026 00:00 UTC" in welcome and "is withdrawn" in welcome, welcome
    # the newcomer has the game's whole allowance
    _mail(run, "z1", "zed@example.org", f"PLAYER bob\nPASSWORD {zed}\nABSENT FROM 2026-12-20 TO 2026-12-21", game="g")
    assert "(2 of your 5 days used, 3 left)" in _bodies(run, "zed@example.org")[-1]


def test_a_rollback_before_a_vote_withdraws_it_and_its_sender_is_told(run):
    r = run("new", "gods", "g", "--seed", "11", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org", "-p", "cat:cat@example.org",
            "--every", "72h")
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    assert run("autoplay", "g", "--max-phases", "2", "--force").returncode == 0
    _mail(run, "b1", "bob@example.org", f"PLAYER bob\nPASSWORD {pw['bob']}\nDRAW", game="g")
    assert json.loads(run("status", "g", "--json").stdout)["games"][0]["votes"] == {"bob": {"kind": "draw", "turn": 3}}
    assert run("rollback", "g", "--to", "2").returncode == 0
    assert json.loads(run("status", "g", "--json").stdout)["games"][0]["votes"] == {}
    told = _bodies(run, "bob@example.org")[-1]
    assert "Your vote for a draw in game g, sent in turn 3, is withdrawn: the GM has set the game back to turn 2" in told
