"""Silent War 2.1, third pass (issue 30 §1): rules a careful player checks, where the engine
deviated from the text.

Each test was written from the rules text (../shared/seeds/000_0b28bf2899953500.txt) before the
rulebook code of its rule was read, and failed before the fix. The numbers asserted are the
text's; where a chart the rule uses is not printed (the Endurance Table, the map), the test
reads the chart through the public API and asserts the rule's mechanism, not the value.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from conftest import RULEBOOKS
from test_silent_war_rules import Game

import rulekit
from rulekit.book.checker import Checked


def sub_named(game: Game, name: str) -> Any:
    return next(s for s in game.state["subs"] if s.attrs["name"] == name)


def where(sub: Any) -> tuple[str, str, str, str]:
    """Where a boat stands: OpArea, section, Base, box."""
    a = sub.attrs
    return (str(a["area"]), str(a["section"]), str(a["base"]), str(a["box"]))


# ---- [15.22] Involuntary RTB: the boat waits in the "Done" section until next turn -----------


def patrolling(game: Game, name: str = "Spearfish", area: str = "Marshalls") -> Any:
    """A Patrol side boat in the Operating section of an OpArea, as after Prep for
    Operations [11.0] ("Move all submarines from "Done" section of OpArea to "Operating"
    section")."""
    sub = game.sub_at_sea(name, area)
    game.call("prep_phase")
    assert str(sub.attrs["side"]) == "patrol" and str(sub.attrs["section"]) == "operating"
    return sub


def failing_endurance_die(sub: Any) -> int:
    """A natural d10 that fails the Endurance check [14.7] ("If the result is > the number
    indicated"): the Endurance Table is not printed, so its number is read from the chart."""
    number = silent_war_book().lookup(
        "endurance_table", at={"endurance_rating": str(sub.attrs["endurance"]), "torpedo": -2}
    )
    assert int(number.value) < 9, "no natural die fails this Endurance number"
    return 9


@cache
def silent_war_book() -> Any:
    """The public API's Book on the same rulebook, for chart look-ups."""
    return rulekit.load(str(RULEBOOKS / "silent_war"))


def test_endurance_rtb_waits_in_done_until_next_turn_15_22(silent_war: Checked) -> None:
    """[14.7] "If the result is > the number indicated, the submarine involuntarily RTBs
    [15.22]. Place an involuntary RTB marker on it and move it to the "Done" section of the
    OpArea." [15.22] "An involuntary RTB from a Combat result, a Transit Event, or the
    Endurance Table forces the submarine to enter RTB immediately. It remains on, or is flipped
    to its Transit side, receives an involuntary RTB marker, and is moved to the "Done" section
    of the appropriate OpArea." [4.0] 15.0: "Submarines that are in the Ready for Sea Box of a
    base, or are outbound to a patrol area, or are on their Transit side (including those with
    an RTB marker) in an Operating section of an OpArea can move". A boat in the Done section
    does not move in this turn's Transit Movement Phase; after the next Prep for Operations
    Phase [11.0] it is in the Operating section and makes its RTB move [15.23]."""
    game = Game(silent_war, [9])
    game.set(torpedo=-2)
    sub = patrolling(game)
    failing_endurance_die(sub)
    game.call("endurance_check", sub=sub)
    assert str(sub.attrs["rtb"]) == "involuntary"
    assert str(sub.attrs["side"]) == "transit"
    before = where(sub)
    assert before == ("Marshalls", "done", "None", "None")
    game.call("unit_transit_movement", sub=sub)  # this turn's Transit Movement Phase [15.0]
    assert where(sub) == before, "an involuntary RTB waits in the Done section this turn"
    assert [e for e in game.events("roll") if e.rule.startswith("19.1")] == []
    # the next turn: Prep for Operations [11.0], then the RTB transit move [15.23]
    game.call("prep_phase")
    assert str(sub.attrs["section"]) == "operating"
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) != before, "the next turn it makes its RTB move"


def test_combat_rtb_waits_in_done_until_next_turn_15_22(silent_war: Checked) -> None:
    """[15.22] "An involuntary RTB from a Combat result ... is moved to the "Done" section of
    the appropriate OpArea." The Counterattack result "Damaged + RTB" [14.2] is such a
    result: the boat does not make its Transit move in the same turn [4.0] 15.0."""
    game = Game(silent_war, [])
    sub = patrolling(game)
    result = game.v("counterattack_result", "Damaged + RTB")
    game.call("apply_counterattack", sub=sub, result=result)
    assert str(sub.attrs["rtb"]) == "involuntary" and sub.attrs["damage"] == 1
    before = where(sub)
    assert before[:2] == ("Marshalls", "done")
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) == before, "a combat RTB waits in the Done section this turn"


def test_voluntary_rtb_still_moves_the_same_turn_15_21(silent_war: Checked) -> None:
    """[15.21] "Flip the submarine to its Transit side, place a voluntary RTB marker on it and
    perform its Transit move." The voluntary RTB is not held back: the contrast to [15.22]."""
    game = Game(silent_war, [])
    sub = patrolling(game)
    game.call("voluntary_rtb", sub=sub)
    before = where(sub)
    game.call("unit_transit_movement", sub=sub)
    assert where(sub) != before
