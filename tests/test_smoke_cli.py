"""The CLI end to end on a GODS game: new, submit, resolve, status, report, replay."""

import json


def test_gods_game_runs_to_the_end_through_the_cli(cli):
    r = cli("new", "gods", "g1", "--player", "alice:a@example.org", "--player", "bob", "--seed", "5")
    assert r.exit_code == 0, r.output
    assert "password" in r.output
    r = cli("autoplay", "g1", "--force")  # alice has an address
    assert r.exit_code == 0, r.output
    status = json.loads(cli("status", "g1", "--json").stdout)
    game = status["games"][0]
    assert game["status"] == "finished"
    assert game["winners"]
    assert game["seed"] == "5"
    r = cli("replay", "g1", "--verify")
    assert r.exit_code == 0 and "every hash matches" in r.output


def test_unknown_game_is_a_clean_message(cli):
    assert cli("new", "gods", "g1", "--player", "alice", "--player", "bob").exit_code == 0
    r = cli("status", "nope")
    assert r.exit_code == 1
    assert "no game 'nope'" in r.stderr
    assert "Traceback" not in r.output
