"""Anyone can re-adjudicate a finished game (issue 18): its site publishes a record (seed,
every submission as executed, every turn's state hash, the data file's hash) and `pbem
verify` re-runs the game from the published files alone, naming any tampered file."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading

import pytest

from pbem.core.registry import game_types

OPTIONS = {"deity": ["--option", "rounds=8"]}


def finished_site(cli, tmp_path, game_type: str) -> tuple:
    """A game of `game_type` played to its end by bots, published; its folder copied away
    from the store (verify must need nothing else)."""
    r = cli("new", game_type, "g1", "--seed", "v1", "-p", "ann", "-p", "bob", "-p", "cyd", *OPTIONS.get(game_type, []))
    assert r.exit_code == 0, r.output
    r = cli("autoplay", "g1")
    assert r.exit_code == 0, r.output
    site = tmp_path / "site"
    assert cli("publish", "--out", site).exit_code == 0
    folder = tmp_path / "copy" / "g1"
    shutil.copytree(site / "games" / "g1", folder)
    (tmp_path / "pbem.db").unlink()  # the store is gone: only the published files remain
    return site, folder


@pytest.mark.parametrize("game_type", sorted(set(game_types()) - {"faith"}))
def test_a_finished_game_is_re_adjudicated_from_its_published_files(cli, tmp_path, game_type):
    _, folder = finished_site(cli, tmp_path, game_type)
    record = json.loads((folder / "record.json").read_text())
    assert record["game"]["seed"] and record["data_sha256"] and record["phases"]
    assert all("PASSWORD" not in s.upper() for ph in record["phases"] for s in ph["scripts"].values())
    r = cli("verify", folder)
    assert r.exit_code == 0, r.output
    assert f"{len(record['phases'])} turns re-adjudicated; every position hash and every public report matches" in r.stdout


def test_a_tampered_public_report_is_caught_and_named(cli, tmp_path):
    _, folder = finished_site(cli, tmp_path, "gods")
    turn = folder / "turn-3.json"
    doc = json.loads(turn.read_text())
    event = next(e for e in doc["events"] if e.get("type") == "order")
    event["order"] = "pass"  # a different order than the one carried out
    turn.write_text(json.dumps(doc))
    r = cli("verify", folder)
    assert r.exit_code == 1
    assert "MISMATCH turn-3.json: the public events differ" in r.stdout
    assert "turn-2.json" not in r.stdout and "turn-4.json" not in r.stdout


def test_tampered_scores_and_result_are_caught_and_named(cli, tmp_path):
    """A tester found verify certifying a finished game edited to name another winner with 99
    points: it looked at the winners of record.json alone, not at the scores of each turn-N.json,
    the result in the last one, or the scores in record.json's result."""
    _, folder = finished_site(cli, tmp_path, "gods")
    record = json.loads((folder / "record.json").read_text())
    last = len(record["phases"])
    loser = min(record["outcome"]["scores"], key=lambda p: (record["outcome"]["scores"][p], p))
    turn = folder / "turn-3.json"
    original = turn.read_text()
    doc = json.loads(original)
    doc["scores"] = {p: v + 10 for p, v in doc["scores"].items()}
    turn.write_text(json.dumps(doc))
    final = folder / f"turn-{last}.json"
    doc = json.loads(final.read_text())
    doc["outcome"]["scores"][loser] = 99
    final.write_text(json.dumps(doc))
    r = cli("verify", folder)
    assert r.exit_code == 1
    assert "MISMATCH turn-3.json: the scores are" in r.stdout, r.stdout
    assert f"MISMATCH turn-{last}.json: the result differs from record.json's" in r.stdout, r.stdout
    record["outcome"]["scores"][loser] = 99  # record.json says so too: the re-adjudicated result does not
    (folder / "record.json").write_text(json.dumps(record))
    turn.write_text(original)
    r = cli("verify", folder)
    assert r.exit_code == 1 and "MISMATCH record.json: the result is" in r.stdout, r.stdout


def test_a_tampered_record_is_caught_at_the_turn_it_changes(cli, tmp_path):
    _, folder = finished_site(cli, tmp_path, "gods")
    record = json.loads((folder / "record.json").read_text())
    # give the first player of turn 2 orders they never sent: the default (discard) instead
    ph = record["phases"][1]
    player = next(iter(ph["scripts"]))
    ph["scripts"][player] = "pass\n"
    (folder / "record.json").write_text(json.dumps(record))
    r = cli("verify", folder)
    assert r.exit_code == 1
    assert "MISMATCH record.json, turn 3: state hash" in r.stdout


def test_a_changed_seed_is_caught(cli, tmp_path):
    _, folder = finished_site(cli, tmp_path, "gods")
    record = json.loads((folder / "record.json").read_text())
    record["game"]["seed"] = "another"
    (folder / "record.json").write_text(json.dumps(record))
    r = cli("verify", folder)
    assert r.exit_code == 1 and "the seed does not match its published hash" in r.stdout


def test_verify_over_http(cli, tmp_path):
    site, _ = finished_site(cli, tmp_path, "gods")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/games/g1/"
        r = cli("verify", url)
        assert r.exit_code == 0, r.output
        assert "every position hash and every public report matches" in r.stdout
        r = cli("verify", f"http://127.0.0.1:{server.server_address[1]}/games/nope/")
        assert r.exit_code == 1 and "no published pbem game" in r.stderr
    finally:
        server.shutdown()


def test_a_running_game_publishes_no_record_and_no_state_hash(cli, tmp_path):
    cli("new", "ohgods", "g1", "--seed", "v1", "-p", "ann", "-p", "bob")
    site = tmp_path / "site"
    assert cli("publish", "--out", site).exit_code == 0
    folder = site / "games" / "g1"
    assert not (folder / "record.json").exists()
    # a hash of the whole position would let a player try hidden hands against it
    assert json.loads((folder / "turn-1.json").read_text())["state_hash"] is None
    r = cli("verify", folder)
    assert r.exit_code == 1 and "not over yet" in r.stderr


def test_verify_of_something_else_says_so(cli, tmp_path):
    r = cli("verify", tmp_path)
    assert r.exit_code == 1 and "no published pbem game" in r.stderr
    (tmp_path / "record.json").write_text("{not json")
    r = cli("verify", tmp_path)
    assert r.exit_code == 1 and "record.json is not valid JSON" in r.stderr


def test_a_game_the_gm_ended_verifies_to_where_it_stopped(cli, tmp_path):
    cli("new", "gods", "g1", "--seed", "v1", "-p", "ann", "-p", "bob")
    for _ in range(3):
        assert cli("resolve", "g1", "--force").exit_code == 0
    r = cli("end", "g1", "--draw", "--reason", "agreed at the table")
    assert r.exit_code == 0, r.output
    site = tmp_path / "site"
    assert cli("publish", "--out", site).exit_code == 0
    page = (site / "games" / "g1" / "index.html").read_text()
    assert "drawn between" in page and "in progress" not in page  # the game's page says how it ended
    assert "drawn between" in (site / "index.html").read_text()
    r = cli("verify", site / "games" / "g1")
    assert r.exit_code == 0, r.output
    assert "note: the game was ended by gm, not by the rules, at turn 4; the result is theirs: ann and bob" in r.stdout
    assert "4 turns re-adjudicated" in r.stdout
