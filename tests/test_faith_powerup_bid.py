"""Faith, Phase 3-4 by mail (tester finding 08): a god whose hand is empty and who has no
pacified chip to flip when the Power-Up opens is still asked for her sealed initiative bid --
"each God ... takes a turn to generate new Faith that goes into his/her hand ... Level 3
Receives three" (L378-384) comes before "Gods bid for the order of action" (L396) -- and her
bid, paid from that income, counts (CHOICE 201). Her `bid` line reaches her alone: no other
god's report, the public report, the published site or its record shows it, before the
auction or after (her maximum was never reached, CHOICE 36)."""

from __future__ import annotations

import json

from gods_helpers import passwords

from pbem import host
from pbem.core import engine
from pbem.core.registry import get_rules
from pbem.host.store import open_db

RULES = get_rules("faith")


def test_an_empty_handed_god_is_asked_for_her_bid_and_it_stays_hers(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_NOW", "2026-11-27T12:00:00Z")
    r = cli("new", "faith", "f1", "--seed", "21", "--player", "jon", "--player", "kim", "--player", "lee",
            "--every", "24h")
    assert r.exit_code == 0, r.output
    keys = passwords(r.stdout)
    db = open_db(str(tmp_path / "pbem.db"))
    n = [0]

    def sub(who: str, *lines: str) -> str:
        n[0] += 1
        f = tmp_path / f"{n[0]:03}-{who}.txt"
        f.write_text("\n".join(["GAME f1", f"PLAYER {who}", f"PASSWORD {keys[who]}", *lines]) + "\n")
        r = cli("submit", "f1", who, str(f))
        assert r.exit_code == 0 and " 0 rejected." in r.stdout, r.output
        return r.stdout

    def report(who: str | None = None, turn: int | None = None) -> str:
        args = ["report", "f1"] + (["--player", who] if who else []) + (["--turn", str(turn)] if turn else [])
        r = cli(*args)
        assert r.exit_code == 0, r.output
        return r.stdout

    def resolve() -> None:
        assert cli("resolve", "f1").exit_code == 0

    def phase() -> str:
        return host.current_state(db, "f1")["flow"]["phase"]

    # set-up: kim takes level 3 (3 faith), the others level 1; in era 1 kim turns her 3 faith
    # into a knight: hand 0, population 0
    sub("jon", "level 1", "done"); sub("kim", "level 3", "done"); sub("lee", "level 1", "done")
    resolve()
    hid = next(line.split()[3] for line in report("kim").splitlines() if line.startswith("#   place "))
    sub("kim", f"place 3 {hid}", f"raise knight {hid}", "done"); sub("jon", "done"); sub("lee", "done")
    resolve()
    for verb in ("none", "done"):   # Phase 6 of era 1, Phase 2 of era 2: whoever is asked
        for p in engine.active_players(RULES, host.current_state(db, "f1")):
            sub(p, verb)
        resolve()
    assert phase() == "powerup"
    g = host.current_state(db, "f1")["game"]
    assert g["hands"]["kim"] == {} and not any(h["pop"].get("israelites") for h in g["hexes"].values())
    # kim is asked: her form offers the sealed bid
    status = cli("status", "f1").stdout
    assert "kim" in status.split("awaiting", 1)[1].split(";")[0], status
    mine = report("kim")
    assert "It is not your turn" not in mine and "bid N" in mine, mine
    said = sub("kim", "bid 3", "done")
    assert "accepted  bid 3" in said, said
    sub("jon", "bid 1", "done"); sub("lee", "bid 0", "done")
    turn = host.current_state(db, "f1")["flow"]["number"]
    resolve()
    assert phase() == "action"
    state = host.current_state(db, "f1")
    g = state["game"]
    # kim opens at 1 (the holder), lee drops out, jon matches; kim raises to 2, jon drops out:
    # kim wins with 2 of her 3 base income; her maximum 3 was never reached
    assert g["initiative"] == "israelites" and g["hands"]["kim"] == {"israelites": 1}, g["hands"]
    assert "the last one in the bidding, for 2 faith" in report(None, turn + 1)
    # the sealed line is hers alone: her own report of the auction says it; nobody else's, nor
    # the public one, though they show her other line of the phase
    assert "kim orders: bid 3" in report("kim", turn + 1)
    for who in ("jon", "lee", None):
        text = report(who, turn + 1)
        assert "kim orders: done" in text and "kim orders: bid" not in text, (who, text)
        assert "kim orders: bid" not in report(who, turn)
    # ... nor the published site: the turn's public JSON and HTML
    assert cli("publish", "--out", str(tmp_path / "site")).exit_code == 0
    folder = tmp_path / "site" / "games" / "f1"
    events = json.loads((folder / f"turn-{turn + 1}.json").read_text())["events"]
    kims = [e["order"] for e in events if e["type"] == "order" and e["player"] == "kim"]
    assert kims == ["done"], kims
    assert any(e["type"] == "bid_raise" and e["amount"] == 2 for e in events)
    pages = [f.read_text() for f in folder.rglob("*") if f.is_file() and f.suffix in (".html", ".json", ".atom")]
    assert any("kim: done" in page for page in pages)
    assert not [page for page in pages if "kim: bid" in page or "bid 3" in page]
