"""Storms [7.21] and the default player (issue 30 §3: storms must be a small share of the boats
lost). Storm markers lie face up on the map [7.2]; where the rules leave a move to the player
([15.1] "any number of OpAreas up to its speed", [15.23] "a destination Base as directly as
possible", [15.25] Cautious Transit), the default player keeps out of the Typhoons it can see.
The storm check itself is the rules' and is tested from their text."""

from __future__ import annotations

from typing import Any

from rulekit.book.checker import Checked
from rulekit.engine.dice import ForcedDice, SeededDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DefaultPolicy, ScriptedPolicy


def _interp(book: Checked, dice: list[int] | None = None) -> Interpreter:
    return Interpreter(book, ForcedDice(list(dice or []), SeededDice(0)), DefaultPolicy())


def _v(book: Checked, enum: str, text: str) -> Any:
    value = book.vocab.enum_value(enum, text)
    assert value is not None, (enum, text)
    return value


def _storms(book: Checked, interp: Interpreter, *where: tuple[str, str]) -> None:
    interp.state.values["storms"] = tuple(
        interp.call("storm", {"area": _v(book, "area", a), "level": _v(book, "storm_level", level)})
        for a, level in where
    )


def _homeward(book: Checked, interp: Interpreter, at: str, damage: int = 1) -> Any:
    """A boat with a voluntary RTB marker [15.21] in an Operating section: it moves this turn."""
    sub = interp.call("start_at_sea", {"name": "Tautog", "at": _v(book, "area", at)})
    sub.attrs["section"] = _v(book, "section", "operating")
    sub.attrs["damage"] = damage
    interp.call("voluntary_rtb", {"sub": sub})
    return sub


# ---- the rules' storm check [7.21], from the text ---------------------------------------------


def test_a_damaged_boat_leaving_a_typhoon_is_lost_above_its_defense_plus_one_7_21(
    silent_war: Checked,
) -> None:
    # [7.21] "When a submarine with a Damaged marker is about to enter a Base ..., or be placed
    # in the "Done" section of an OpArea, if it is in or has transited through or from a
    # Typhoon OpArea, roll a d10. ... If the result is > the defense rating of the submarine +1
    # ..., the submarine is lost." Tautog (Defense 3, no skipper): 5 is lost, 4 is not.
    for roll, lost in ((5, True), (4, False)):
        interp = _interp(silent_war, [roll])
        _storms(silent_war, interp, ("Marianas", "Typhoon-1"))
        sub = _homeward(silent_war, interp, "Marianas")
        assert sub.attrs["defense"] == 3
        passed = (_v(silent_war, "area", "Marianas"), _v(silent_war, "area", "Marshalls"))
        interp.call("storm_damage_check", {"sub": sub, "passed": passed})
        assert (str(sub.attrs["status"]) != "active") == lost, roll


def test_an_undamaged_boat_in_a_typhoon_is_damaged_on_0_1_then_lost_above_its_defense_7_21(
    silent_war: Checked,
) -> None:
    # "roll a d10 ... On a result of 0-1, the submarine receives a Damaged marker and a second
    # d10 is rolled. ... If the result is > the defense rating of the submarine, the submarine
    # is lost."
    cases = [([2], "active", 0), ([1, 3], "active", 1), ([0, 4], "sunk", None)]
    for dice, status, damage in cases:
        interp = _interp(silent_war, dice)
        _storms(silent_war, interp, ("Marianas", "Typhoon-2"))
        sub = _homeward(silent_war, interp, "Marianas", damage=0)
        interp.call("storm_damage_check", {"sub": sub, "passed": (sub.attrs["area"],)})
        assert str(sub.attrs["status"]) == status, dice
        if damage is not None:
            assert sub.attrs["damage"] == damage


# ---- the default player keeps out of the storms it can see -----------------------------------


def test_a_boat_returning_home_takes_the_equally_direct_route_that_avoids_a_typhoon_15_23(
    silent_war: Checked,
) -> None:
    # [15.23] "the submarine is moved via OpAreas to a destination Base as directly as
    # possible". From the Bonins, Pearl Harbor is as near by the Empire Pacific and the North
    # Pacific as by the Marianas and the Marshalls (the map's routes). With a Typhoon in the
    # North Pacific, a damaged boat (lost above Defense + 1 there [7.21]) goes the calm way.
    pearl = _v(silent_war, "base", "Pearl Harbor")
    # no storm: the map's shortest route (speed 2: two OpAreas)
    interp = _interp(silent_war, [0] * 6)
    interp.state.values["active_bases"] = (pearl,)
    sub = _homeward(silent_war, interp, "Bonins")
    interp.call("return_to_base", {"sub": sub})
    assert str(sub.attrs["area"]) == "North Pacific"
    # a Typhoon in the North Pacific: the Marianas and the Marshalls, no storm check
    interp = _interp(silent_war, [0] * 6)
    interp.state.values["active_bases"] = (pearl,)
    _storms(silent_war, interp, ("North Pacific", "Typhoon-1"))
    sub = _homeward(silent_war, interp, "Bonins")
    interp.call("return_to_base", {"sub": sub})
    assert str(sub.attrs["status"]) == "active"
    assert str(sub.attrs["area"]) == "Marshalls"
    assert sub.attrs["damage"] == 1


def test_a_returning_boat_moves_a_single_opArea_rather_than_into_a_typhoon_15_25(
    silent_war: Checked,
) -> None:
    # [15.25] "A submarine performing Transit movement may choose to move a single OpArea
    # instead of at a higher speed". Typhoons in the North Pacific and the Marshalls: both
    # direct ways home from the Bonins meet one at the second OpArea; the boat moves one and
    # waits for the storm to pass [7.22].
    pearl = _v(silent_war, "base", "Pearl Harbor")
    interp = _interp(silent_war, [0] * 6)
    interp.state.values["active_bases"] = (pearl,)
    _storms(silent_war, interp, ("North Pacific", "Typhoon-1"), ("Marshalls", "Typhoon-2"))
    sub = _homeward(silent_war, interp, "Bonins")
    interp.call("return_to_base", {"sub": sub})
    assert str(sub.attrs["status"]) == "active"
    assert str(sub.attrs["area"]) in ("Empire Pacific", "Marianas")


def test_a_damaged_boat_returns_to_a_base_whose_way_home_is_calm_15_23(
    silent_war: Checked,
) -> None:
    # [15.23] "a destination Base": the player's. From the Marianas the nearest Base is Pearl
    # Harbor (through the Marshalls); with a Typhoon in the Marshalls a damaged boat heads for
    # Brisbane (through the Carolines), in range. Without the storm, Pearl Harbor.
    pearl, brisbane = _v(silent_war, "base", "Pearl Harbor"), _v(silent_war, "base", "Brisbane")
    for storm, home in ((False, pearl), (True, brisbane)):
        interp = _interp(silent_war)
        interp.state.values["active_bases"] = (pearl, brisbane)
        if storm:
            _storms(silent_war, interp, ("Marshalls", "Typhoon-1"))
        sub = _homeward(silent_war, interp, "Marianas")
        interp.call("choose_rtb_destination", {"sub": sub})
        assert sub.attrs["bound_for"] == home, storm


def test_a_boat_in_transit_stops_before_a_typhoon_on_its_way_15_1(silent_war: Checked) -> None:
    # [15.1] "move any number of OpAreas up to its speed": a boat heading from the Hawaiian
    # Islands to the Marianas (speed 2: the Marshalls, then the Marianas) with a Typhoon in the
    # Marianas stops in the Marshalls (a single OpArea, Cautious Transit [15.25]).
    interp = _interp(silent_war, [0] * 6)
    interp.state.values["active_bases"] = (_v(silent_war, "base", "Pearl Harbor"),)
    hawaii = _v(silent_war, "area", "Hawaiian Islands")
    transit = _v(silent_war, "side", "transit")
    sub = interp.call("start_at_sea", {"name": "Tautog", "at": hawaii, "side": transit})
    sub.attrs["destination"] = _v(silent_war, "area", "Marianas")
    sub.attrs["section"] = _v(silent_war, "section", "operating")
    _storms(silent_war, interp, ("Marianas", "Typhoon-1"))
    interp.call("continue_transit", {"sub": sub})
    assert str(sub.attrs["status"]) == "active" and sub.attrs["damage"] == 0
    assert str(sub.attrs["area"]) == "Marshalls"


def test_with_no_storm_on_the_map_transit_moves_are_as_before(silent_war: Checked) -> None:
    interp = _interp(silent_war, [0] * 6)
    interp.state.values["active_bases"] = (_v(silent_war, "base", "Pearl Harbor"),)
    hawaii = _v(silent_war, "area", "Hawaiian Islands")
    transit = _v(silent_war, "side", "transit")
    sub = interp.call("start_at_sea", {"name": "Tautog", "at": hawaii, "side": transit})
    sub.attrs["destination"] = _v(silent_war, "area", "Bonins")
    sub.attrs["section"] = _v(silent_war, "section", "operating")
    interp.call("continue_transit", {"sub": sub})
    assert str(sub.attrs["area"]) == "Empire Pacific"  # the map's route: North Pacific, Empire


def test_the_player_may_still_sail_into_the_typhoon_15_1_15_25(silent_war: Checked) -> None:
    # the stop is the default player's advice, not a rule: a player who declines Cautious
    # Transit and moves its full speed [15.1] ends in the Typhoon and checks for storm damage
    interp = Interpreter(
        silent_war,
        ForcedDice([0] * 3 + [9], SeededDice(0)),
        ScriptedPolicy({"cautious": ["false"], "areas_moved": ["2"]}),
    )
    interp.state.values["active_bases"] = (_v(silent_war, "base", "Pearl Harbor"),)
    hawaii = _v(silent_war, "area", "Hawaiian Islands")
    transit = _v(silent_war, "side", "transit")
    sub = interp.call("start_at_sea", {"name": "Tautog", "at": hawaii, "side": transit})
    sub.attrs["destination"] = _v(silent_war, "area", "Marianas")
    sub.attrs["section"] = _v(silent_war, "section", "operating")
    _storms(silent_war, interp, ("Marianas", "Typhoon-1"))
    interp.call("continue_transit", {"sub": sub})
    assert str(sub.attrs["area"]) == "Marianas"


def test_a_boat_whose_way_on_starts_in_a_typhoon_heads_for_a_calm_opArea_15_1(
    silent_war: Checked,
) -> None:
    # its patrol area, the Marshalls next to it, has a Typhoon: the default player sends the
    # boat to the best calm OpArea next to it instead (its intent is the player's [15.1])
    interp = _interp(silent_war, [0] * 6)
    interp.state.values["active_bases"] = (_v(silent_war, "base", "Pearl Harbor"),)
    hawaii = _v(silent_war, "area", "Hawaiian Islands")
    transit = _v(silent_war, "side", "transit")
    sub = interp.call("start_at_sea", {"name": "Tautog", "at": hawaii, "side": transit})
    sub.attrs["destination"] = _v(silent_war, "area", "Marshalls")
    sub.attrs["section"] = _v(silent_war, "section", "operating")
    _storms(silent_war, interp, ("Marshalls", "Typhoon-1"))
    interp.call("continue_transit", {"sub": sub})
    assert str(sub.attrs["area"]) in ("North Pacific", "Gilberts")
    assert sub.attrs["destination"] == sub.attrs["area"]
    assert sub.attrs["damage"] == 0
