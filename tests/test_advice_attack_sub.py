"""``rulekit advise`` and ``--policy advised:`` on Attack Sub (issue 14 §2).

The situation is the [6.4] Multiple Fire Cards example (examples/attack_sub/evasion_6_4.toml):
an undamaged John Rodgers (Attack Value +2 against a Submarine, printed) with Contact Level 3
on a Victor III plays Weapon Lockon cards 6 (Fire 2, Contact 2) and 14 (Fire 2, Contact 1):
strength 2 + 2 + 2 = 6 before the RN, as [6.4] prints. The Soviet Hand holds two Evasive
Action cards, 4 (High Speed Turn, 1) and 12 (Noisemaker, 2, Sub Only), and "may now play up
to two red cards in reaction" ([6.4], [7.1]: one against each Weapon Lockon card). The
Draw pile is the last eleven cards of the provisional deck (cards.rk), 34-44.

The working, from the rules' arithmetic and the deck as the rulebook models it:

- [6.5] a hit when strength - evasion + RN >= the Defense Value: 6 - e + RN >= 8 (the Victor
  III's provisional 8, undamaged [6.6]), so RN >= 2 + e. [9.1] an X is a malfunction, no hit.
- The Draw pile: cards 34-44 read RN 0, 1, ..., 9, X, one each, with the Hit results DUD,
  ATTACK, SENSOR, ATTACK, SENSOR, ATTACK x2, SENSOR x2, ATTACK + SENSOR, DUD, SUNK, ATTACK
  (card n of the deck: RN (n - 1) mod 11, X for 10; Hit results every 11 cards).
- [6.5] on a hit "draw another card": the Hit result is one of the ten cards left. A card
  drawn is not drawn again, so the SUNK card (43, RN 9) sinks the Sub only when the RN was
  another card: P(sunk | e) = (RNs from 2 + e to 8) / 11 x 1/10. The Victor III is undamaged,
  so no other result sinks it (at most two boxes against the Sunk box, 3).
    e = 0: RN 2-8, 7/110;  e = 1: 6/110 = 3/55;  e = 2: 5/110 = 1/22;  e = 3: 4/110 = 2/55.
"""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, RULEBOOKS, run_cli

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve
from rulekit.engine.values import EnumValue

BOOK = str(RULEBOOKS / "attack_sub")
GIVEN = EXAMPLES / "attack_sub" / "evasion_6_4.toml"
ATTACK = ["lockon_attack", "--given", str(GIVEN), "--at", "s=John Rodgers"]
SUNK = "if find_ship(p.target).sunk then 1 else 0"
CONTACT = "if find_ship(p.target).sunk then 4 else highest_contact_on(find_ship(p.target))"
METHODS = ("situations", "paths")


def _advise(*args: str) -> dict[str, Any]:
    shown = run_cli("advise", BOOK, *args, "--json")
    assert shown.exit_code == 0, shown.output
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


def _worth(decision: dict[str, Any]) -> dict[str, Fraction]:
    return {o["option"]: Fraction(o["value"]["exact"]) for o in decision["options"]}


def _all(data: dict[str, Any]) -> set[tuple[Any, ...]]:
    """Every decision reported, comparable between the methods (they list them in orders of
    their own)."""
    return {
        (
            d["name"],
            tuple(d["after"]),
            d["reach"]["exact"],
            tuple(sorted(_worth(d).items())),
            d["best"],
            d["default"],
            None if d["gain"] is None else d["gain"]["exact"],
        )
        for d in data["decisions"]
    }


def test_the_situation_is_the_rulebook_s_deck(sub: Checked) -> None:
    """The example's `faces` are what read_card_faces reads from the rulebook's tables, and
    every card of the deck is in exactly one place: the Draw pile, the discards or a Hand."""
    given = tomllib.loads(GIVEN.read_text(encoding="utf-8"))
    read = resolve(sub, "read_card_faces").interpreter.state.values["faces"]
    assert [
        {
            k: "none" if v is None else v.printed if isinstance(v, EnumValue) else v
            for k, v in face.fields
        }
        for face in read
    ] == given["faces"]
    places = given["rn_deck"] + given["discards"] + given["nato_hand"] + given["soviet_hand"]
    assert sorted(places) == list(range(1, 45))
    assert given["rn_deck"] == list(range(34, 45))
    assert (given["nato_hand"], given["soviet_hand"]) == ([6, 14], [4, 12])


def test_which_evasive_action_cards_against_the_6_4_attack() -> None:
    """Minimizing the chance that the Victor III is sunk. First card: none leaves one card for
    the second Weapon Lockon card, at best the Noisemaker (e = 2): 1/22; the High Speed Turn
    then the Noisemaker, or the Noisemaker then the High Speed Turn (e = 3): 2/55 each, a tie
    that goes to the rulebook's default (the largest number, 12). After the Noisemaker: none
    (e = 2) 1/22, the High Speed Turn (e = 3) 2/55. Both methods (situations, the default,
    and paths) report every decision alike."""
    by_situations = _advise(*ATTACK, "--minimize", SUNK)
    by_paths = _advise(*ATTACK, "--minimize", SUNK, "--method", "paths")
    assert by_situations["situations"] is not None and by_paths["situations"] is None
    assert _all(by_situations) == _all(by_paths)
    for data in (by_situations, by_paths):
        _evasion_advised(data)


def _evasion_advised(data: dict[str, Any]) -> None:
    assert Fraction(data["best"]["exact"]) == Fraction(2, 55)
    assert Fraction(data["by_default"]["exact"]) == Fraction(2, 55)
    first, second, *deads = data["decisions"]
    assert (first["name"], first["after"], Fraction(first["reach"]["exact"])) == ("evade", [], 1)
    assert _worth(first) == {"0": Fraction(1, 22), "4": Fraction(2, 55), "12": Fraction(2, 55)}
    assert (first["best"], first["default"], first["gain"]["exact"]) == ("12", "12", "0")
    assert (second["name"], second["after"]) == ("evade", ["evade=12"])
    assert _worth(second) == {"0": Fraction(1, 22), "4": Fraction(2, 55)}
    assert (second["best"], second["default"]) == ("4", "4")
    # [5.5] the Sub may play dead after any hit that leaves it in play: a hit (RN 5-9, cards
    # 39-43) and then any of the ten cards left but the SUNK card 43 (drawn first, it is
    # gone): 5 x 10 - 4 = 46 ways, each 1/11 x 1/10. Playing dead cannot change whether the
    # Sub is sunk: both options are worth 0, and the default is kept.
    assert len(deads) == 46
    for dead in deads:
        assert dead["name"] == "dead" and dead["after"][:2] == ["evade=12", "evade=4"]
        assert Fraction(dead["reach"]["exact"]) == Fraction(1, 110)
        assert _worth(dead) == {"no": 0, "yes": 0} and dead["best"] == dead["default"]


def test_with_no_evasive_action_or_the_high_speed_turn_alone() -> None:
    """The two sums no best play reaches: no card at all (e = 0) 7/110, the High Speed Turn
    alone (e = 1) 3/55, the first and the second card fixed with --decide."""
    for fixed, worth in (("0", Fraction(7, 110)), ("4", Fraction(3, 55))):
        decide = ["--decide", f"evade={fixed}", "--decide", "evade=0"]
        data = _advise(*ATTACK, *decide, "--minimize", SUNK)
        assert Fraction(data["best"]["exact"]) == worth


def test_playing_dead_after_a_dud_beats_the_rulebook_s_advice() -> None:
    """The Noisemaker and the High Speed Turn played (e = 3), minimizing NATO's Contact Level
    on the Victor III (a sinking counted as 4). A miss (RN 0-4 or X: 6/11) leaves Level 3. A
    hit (RN 5-9) that does not sink: [5.5] playing dead "reduces all Contact Levels on that
    Submarine by one", 2 against 3 staying up. The rulebook's default plays dead only when
    the Sub is damaged, so not after a Dud: after each of the nine Duds (a hit card of 39,
    40, 41, 43, then DUD card 34 or 42: 4 x 2, or 42 then 34: 1) playing dead is 1 better.
    Best: 6/11 x 3 + 4/110 x 4 + 46/110 x 2 = 288/110 = 144/55; by default the nine Duds
    stay at 3: 297/110 = 27/10."""
    fixed = ["--decide", "evade=12", "--decide", "evade=4"]
    both = []
    for method in METHODS:
        data = _advise(*ATTACK, *fixed, "--minimize", CONTACT, "--method", method)
        assert Fraction(data["best"]["exact"]) == Fraction(144, 55)
        assert Fraction(data["by_default"]["exact"]) == Fraction(27, 10)
        assert len(data["decisions"]) == 46
        assert all(_worth(d) == {"no": 3, "yes": 2} for d in data["decisions"])
        assert all(d["best"] == "yes" for d in data["decisions"])
        duds = [d for d in data["decisions"] if d["default"] == "no"]
        assert len(duds) == 9
        # minimizing, "the best is 1 better than the default": the gain is never negative
        assert {d["gain"]["exact"] for d in duds} == {"1"}
        assert {d["gain"]["exact"] for d in data["decisions"] if d not in duds} == {"0"}
        both.append(_all(data))
    assert both[0] == both[1]
    shown = run_cli("advise", BOOK, *ATTACK, *fixed, "--minimize", CONTACT)
    assert "the best is 1.0000 better than the default" in shown.stdout
    assert "-1.0000" not in shown.stdout


def _decisions(trace: Path) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e for e in events if e.get("event") == "decision"]


def test_a_convoy_screen_turn_played_advised(tmp_path: Path) -> None:
    """[13M] One game turn, every decision advised to keep the Soviet contacts low. NATO plays
    first and every Contact Level starts at No Contact, so when a NATO Active Sonar search
    lets a Soviet Sub answer with a Passive Sonar card [4.22] ("to increase its Contact
    Level on the searching Ship": one box, no RN), answering is worth 1 and not answering 0."""
    trace = tmp_path / "trace.jsonl"
    goal = "advised:min:sum(c.level for c in contacts if c.side = SOVIET)"
    ran = run_cli("run", BOOK, "--turns", "1", "--seed", "1", "--policy", goal, "--trace", trace)
    assert ran.exit_code == 0, ran.output
    decisions = _decisions(trace)
    assert decisions and all(d["by"].startswith("advised: ") for d in decisions)
    assert any(d["by"].startswith("advised: worth ") for d in decisions)
    answers = [d for d in decisions if d["name"] == "answer"]
    assert answers, [d["name"] for d in decisions]
    for answer in answers:
        assert answer["choice"] is False
        assert answer["by"] == "advised: worth 0, the default 1"
