"""Silent War 2.1 [15.1] Base to Base transfer, written from the rules text
(../shared/seeds/000_0b28bf2899953500.txt) before the rulebook's code for it.

[15.1] "Deployment Transit Movement / From a Base to an OpArea, OpArea to OpArea or Base to
Base / During the Operations Segment a submarine starting in the Ready for Sea Box of a Base
may (player's choice) move any number of OpAreas up to its speed." Each test quotes the
sentences it checks. The map (which OpAreas lie between two Bases) and the counters' speeds
are not printed in the rules: the tests read distances from the rulebook and set the speeds
they need, and assert the mechanism (where the boat is, which checks it rolls).
"""

from __future__ import annotations

from typing import Any

from test_silent_war_bases import at_tender, forward_base
from test_silent_war_rules import Game

from rulekit.book.checker import Checked


def rolls(game: Game, rule: str) -> list[Any]:
    return [e for e in game.events("roll") if e.rule == rule]


def offered(game: Game) -> list[str]:
    (asked,) = game.events("decision", name="target")
    return [str(o) for o in asked.options]


def ready_at(game: Game, name: str, base: str, **attrs: Any) -> Any:
    sub = game.call(
        "start_at_base", name=name, at=game.v("base", base), box=game.v("base_box", "Ready for Sea")
    )
    sub.attrs.update(attrs)
    return sub


def distance_to_base(game: Game, base: str, area: str) -> int:
    return int(
        game.call("base_distance", **{"from": game.v("base", base), "to": game.v("area", area)})
    )


def arrived(sub: Any, base: str) -> None:
    # [15.23] "Upon entering a Base, remove any Spotted marker. If undamaged, the submarine is
    # placed in the Broom Box." (what a Base does with a boat that enters it; [15.1] says no
    # more for a transfer, see the rulebook's provisional note)
    assert str(sub.attrs["base"]) == base and str(sub.attrs["box"]) == "Broom"
    assert sub.attrs["area"] is None and sub.attrs["rtb"] is None
    assert str(sub.attrs["side"]) == "transit" and sub.attrs["spotted"] is False


# ---- what is offered --------------------------------------------------------------------------


def test_only_another_active_base_is_offered_21_0(silent_war: Checked) -> None:
    # [21.0] "Of the major bases, only Pearl Harbor is continuously active throughout the war.
    # The others become active and/or inactive due to a War Event". [15.11] "A submarine may
    # never move farther from any active base than its range value." Base to Base: another
    # Base, an active one. Brisbane active, Fremantle not; the boat's own Base is no transfer.
    game = Game(silent_war, [0] * 6, go=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", range=8)
    game.call("deploy", sub=sub)
    options = offered(game)
    assert "Brisbane" in options
    assert "Fremantle" not in options and "Pearl Harbor" not in options
    assert "Hawaiian Islands" in options  # "From a Base to an OpArea" is still offered


def test_a_base_beyond_range_is_not_offered_15_11(silent_war: Checked) -> None:
    # [15.11] "A submarine may never move farther from any active base than its range value."
    # With a range of 1 the boat may not leave the OpArea next to Pearl Harbor, so it cannot
    # sail to Brisbane (whose nearest OpArea is farther from every active Base).
    game = Game(silent_war, [0] * 6, go=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", range=1)
    game.call("deploy", sub=sub)
    assert "Brisbane" not in offered(game)


def test_a_wolfpack_cannot_transfer_from_base_to_base_24_2(silent_war: Checked) -> None:
    # [24.2] "Wolfpacks follow the rules of movement except that all members of a Wolfpack move
    # together as if they were a single unit. Wolfpacks cannot transfer from Base to Base, but
    # they may "bounce" to a new base after spending at least one turn in "patrol" mode."
    game = Game(silent_war, [0] * 12, go=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    pack = [ready_at(game, n, "Pearl Harbor", wolfpack=1) for n in ("Tang", "Wahoo", "Drum")]
    game.call("unit_transit_movement", sub=pack[0])
    assert "Brisbane" not in offered(game)
    assert all(s.attrs["base"] is None for s in pack)  # the pack went to sea together


def test_a_tender_at_its_capacity_takes_no_transfer_21_22(silent_war: Checked) -> None:
    # [21.1] "The remaining bases are Forward Bases that are represented on the map by
    # Submarine Tenders in SMZs". [21.22] "This is the maximum number of submarines that can be
    # in the tender's Broom, Shipyards, and Ready for Sea Boxes at any one time."
    game = Game(silent_war, [0] * 6, go=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway", "Holland")
    sub = ready_at(game, "Tautog", "Pearl Harbor")
    game.call("deploy", sub=sub)
    assert "Midway" in offered(game)  # a Forward Base with room is a Base to go to
    full = Game(silent_war, [0] * 6, go=True)
    full.set(active_bases=(full.v("base", "Pearl Harbor"),))
    midway = forward_base(full, "Midway", "Holland")
    crews = ["Gudgeon", "Triton", "Pollack", "Plunger", "Gato", "Growler"]
    for name in crews[: full.call("tender_capacity", name="Holland")]:
        at_tender(full, name, midway, "Broom")
    sub = ready_at(full, "Tautog", "Pearl Harbor")
    full.call("deploy", sub=sub)
    assert "Midway" not in offered(full)


# ---- the move ---------------------------------------------------------------------------------


def test_a_transfer_within_speed_arrives_the_same_turn_15_1(silent_war: Checked) -> None:
    # [15.1] "move any number of OpAreas up to its speed. Note: departure from a permanent base
    # to an adjacent OpArea is counted against its speed rating ... Perform a Transit Event check
    # [19.1] for the submarine using the OpArea with the lowest number on the line for the
    # current War Period which contains a red box through or to which the submarine moved."
    # Fremantle to Brisbane: the boat's speed is set to the whole way (out of Fremantle, the
    # OpAreas between, into Brisbane); one Transit Event check over every OpArea it passed
    # (it started in a Base, no OpArea is excluded); a 0 makes no event.
    game = Game(silent_war, [0], go=True, target="Brisbane")
    game.set(active_bases=(game.v("base", "Fremantle"), game.v("base", "Brisbane")))
    way = 1 + distance_to_base(game, "Brisbane", "Java Sea")
    sub = ready_at(game, "Tautog", "Fremantle", speed=way, range=8)
    game.call("transit_movement", sub=sub)
    arrived(sub, "Brisbane")
    assert len(rolls(game, "19.1")) == 1
    (governing,) = game.events("call", procedure="governing_area")
    passed = [str(a) for a in governing.args["passed"]]
    assert passed[0] == "Java Sea" and len(passed) == way - 1  # every OpArea on the way
    assert game.dice_left() == 0


def test_a_longer_transfer_goes_on_in_the_following_turns_15_11(silent_war: Checked) -> None:
    # [15.1] "If the submarine survives, place it in the "Done" section of the ending OpArea.
    # The submarine remains Transit side up if it intends to transit further next turn".
    # [15.11] "In the following turn(s), a non-RTB Transit side submarine repeats transit
    # movement (and Transit Event roll)." [4.0] 15.0: "Transit side up if it intends to continue
    # on to another OpArea or Base." Pearl Harbor to Brisbane at speed 2.
    game = Game(silent_war, [0] * 6, go=True, target="Brisbane")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    way = 1 + distance_to_base(game, "Brisbane", "Hawaiian Islands")
    assert way > 4  # the premise: more than two turns at speed 2
    game.call("transit_movement", sub=sub)
    first = str(sub.attrs["area"])
    assert distance_to_base(game, "Pearl Harbor", first) == 2  # two moves out, counting departure
    assert str(sub.attrs["side"]) == "transit" and str(sub.attrs["section"]) == "done"
    assert sub.attrs["rtb"] is None and sub.attrs["base"] is None
    # each leg through OpAreas with red boxes (War Period 1) rolls one Transit Event check
    assert len(rolls(game, "19.1")) == 1
    turns = 1
    while sub.attrs["base"] is None:
        assert turns < 5, "the boat never arrives"
        left = distance_to_base(game, "Brisbane", str(sub.attrs["area"]))
        checks = len(rolls(game, "19.1"))
        game.call("prep_phase")
        game.call("transit_movement", sub=sub)
        turns += 1
        if sub.attrs["base"] is None:
            assert distance_to_base(game, "Brisbane", str(sub.attrs["area"])) == left - 2
            assert str(sub.attrs["side"]) == "transit" and str(sub.attrs["section"]) == "done"
            assert len(rolls(game, "19.1")) == checks + 1
        elif left == 1:
            # from the OpArea next to Brisbane into it: no OpArea moved through or to, so no
            # check ("Do not use the OpArea from which the submarine started")
            assert len(rolls(game, "19.1")) == checks
    assert turns == -(-way // 2)
    arrived(sub, "Brisbane")
    assert game.events("decision", name="rtb_base") == []  # no RTB: a transfer


def test_cautious_transit_on_a_transfer_moves_one_oparea_15_25(silent_war: Checked) -> None:
    # [15.25] "A submarine performing Transit movement may choose to move a single OpArea
    # instead of at a higher speed ... If a submarine chooses to move one OpArea, subtract one
    # from the Transit Event check [19.1]." Out of Pearl Harbor into the Hawaiian Islands.
    game = Game(silent_war, [0] * 3, go=True, target="Brisbane", cautious=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=3, range=8)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Hawaiian Islands"
    for check in rolls(game, "19.1"):
        assert "15.25" in [m.rule for m in check.modifiers]
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert distance_to_base(game, "Pearl Harbor", str(sub.attrs["area"])) > 1  # still going


def test_transfers_to_and_from_a_forward_base_15_1_21_1(silent_war: Checked) -> None:
    # [15.1] Note: "departure from a permanent base to an adjacent OpArea is counted against its
    # speed rating, while departure from a Special Mission Zone (SMZ) base to a connected
    # OpArea is not since the SMZ is considered to be "in" the OpArea." At speed 1: out of
    # Pearl Harbor into the Hawaiian Islands (one move), where Midway is; from Midway back,
    # out of the SMZ at no cost and into Pearl Harbor (one move). [9.0] the tender has a
    # Broom Box like a Base.
    game = Game(silent_war, [0] * 4, go=[True, True], target=["Midway", "Pearl Harbor"])
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1)
    game.call("transit_movement", sub=sub)
    assert sub.attrs["tender"] == midway and str(sub.attrs["box"]) == "Broom"
    assert sub.attrs["area"] is None and sub.attrs["base"] is None
    sub.attrs["box"] = game.v("base_box", "Ready for Sea")
    game.call("transit_movement", sub=sub)
    arrived(sub, "Pearl Harbor")
    assert sub.attrs["tender"] is None


def test_storm_damage_on_entering_the_other_base_then_the_damage_table_7_21_18_11(
    silent_war: Checked,
) -> None:
    # [7.21] Tropical Storm: "When a submarine is about to enter a Base or Tender ... if it is
    # in or has transited through or from a Tropical Storm OpArea ..., roll a d10. On a result
    # of 0, the submarine receives a Damaged marker." [18.11] "Upon arriving at a Base, damaged
    # submarines must roll one d10 on the Damage Table. The results of this die roll places the
    # submarine in one of the Repair Boxes or into the Broom Box." A storm in the Coral Sea,
    # next to Brisbane; dice: the Transit Event check (0, nothing), the storm (0), the Damage
    # Table (9).
    game = Game(silent_war, [0, 0, 9], go=True, target="Brisbane")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    marker = game.interp.call(
        "storm",
        {"area": game.v("area", "Coral Sea"), "level": game.v("storm_level", "Tropical Storm")},
    )
    game.set(storms=[marker])
    way = 1 + distance_to_base(game, "Brisbane", "Hawaiian Islands")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=way, range=8)
    game.call("transit_movement", sub=sub)
    assert [r.natural for r in rolls(game, "7.21")] == [0]
    (table,) = [str(e.result) for e in game.events("lookup") if e.table == "damage_table"]
    assert str(sub.attrs["base"]) == "Brisbane" and sub.attrs["damage"] == 0
    # the box the Damage Table's result names (the table is provisional: read, not restated)
    assert str(sub.attrs["box"]) == (table if table.startswith("Repair") else "Broom")
    assert game.dice_left() == 0


def test_an_rtb_event_on_the_way_ends_the_transfer_and_the_player_names_the_base_19_11(
    silent_war: Checked,
) -> None:
    # [19.11] "If a submarine receives an involuntary RTB result (regardless of whether it is
    # already in RTB), the submarine is placed in the Done section (as per [15.22]) of the
    # OpArea used to determine the Transit Event check." [15.23] RTB: "the submarine is moved
    # via OpAreas to a destination Base" (the player names it). A boat on its way from Pearl
    # Harbor to Brisbane at speed 2 (first leg: a 0, no event) is spotted before its second
    # leg: War Period 1, a check of 9 (Transit side -1, Spotted +1 [19.1]) reaches red on the
    # (provisional) charts of the OpAreas it passes; row 9, column 7: RTB (the provisional
    # table, as in test_an_rtb_result_on_the_last_leg_stops_the_boat_short_of_its_base_19_11).
    game = Game(silent_war, [0, 9, 9, 7], go=True, target="Brisbane", rtb_base="Pearl Harbor")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)  # first leg: the 0, no event
    assert sub.attrs["base"] is None and sub.attrs["rtb"] is None
    sub.attrs["spotted"] = True
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    lookups = [e.result for e in game.events("lookup") if e.table == "transit_event_table"]
    assert lookups == ["RTB"]  # the premise, from the provisional charts and table
    assert str(sub.attrs["rtb"]) == "involuntary" and str(sub.attrs["section"]) == "done"
    assert sub.attrs["base"] is None
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    # [15.22] it waits in the Done section this turn; the next, it returns to a Base it names
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert len(game.events("decision", name="rtb_base")) == 1


def test_the_default_player_heads_for_an_oparea_not_another_base(silent_war: Checked) -> None:
    # A player's choice, not a rule: the default player does not transfer (it "bounces" to
    # another Base after a patrol instead, as the [10.21] Note and [24.2] describe).
    game = Game(silent_war, [0] * 6)
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", range=8)
    game.call("deploy", sub=sub)
    (asked,) = game.events("decision", name="target")
    assert "Brisbane" in [str(o) for o in asked.options]
    assert str(asked.choice) not in ("Brisbane", "Pearl Harbor")
    assert sub.attrs["area"] is not None


def test_a_boat_on_its_way_to_another_base_answers_a_special_mission_5_2_20_5(
    silent_war: Checked,
) -> None:
    # [5.2] "If the player does not have enough submarines able to enter the zone via Patrol
    # Movement, non-RTB submarines that are Transit side up in or adjacent to an OpArea with
    # the SMZ must be moved into the SMZ during the Operations Segment." A boat transferring
    # from Pearl Harbor to Brisbane is one. [20.5] "These submarines must conduct voluntary RTB
    # movement [15.21] in the Transit Movement Phase of the current turn": then a Base of the
    # player's choosing [15.23], no longer the transfer's.
    game = Game(silent_war, [0] * 8, go=True, target="Brisbane", rtb_base="Pearl Harbor")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)
    assert sub.attrs["bound_for"] == game.v("base", "Brisbane")
    area = sub.attrs["area"]
    zone = game.v("smz", "Guadalcanal")
    # the premise: the zone is linked to the boat's OpArea or one next to it
    linked = game.call("smz_areas", smz=zone)
    assert area in linked or any(a in game.call("routes", area=area) for a in linked)
    game.set(active_smzs=(zone,))
    game.state["missions"] = (game.call("mission", zone=zone, count=1),)
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert sub.attrs["smz"] == zone and str(sub.attrs["side"]) == "patrol"
    assert sub.attrs["bound_for"] is None
    game.call("transit_movement", sub=sub)  # [20.5] the next Transit Movement: home
    assert len(game.events("decision", name="rtb_base")) == 1


def test_a_boat_in_transit_may_stop_to_patrol_where_it_ends_a_leg_15_1(
    silent_war: Checked,
) -> None:
    # [15.1] "If the submarine survives, place it in the "Done" section of the ending OpArea.
    # The submarine remains Transit side up if it intends to transit further next turn, or
    # flips to its Patrol side if it intends to patrol next turn." [4.0] 15.0: "Patrol side up
    # if it intends to patrol there next turn or Transit side up if it intends to continue on
    # to another OpArea or Base." The intention is the player's at the end of each leg: a boat
    # bound for Brisbane, two turns out, may instead patrol where its first leg ends.
    game = Game(silent_war, [0] * 6, go=True, target="Brisbane")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)
    assert sub.attrs["base"] is None  # the premise: still on its way after one leg
    asked = [e for e in game.events("decision") if e.name != "target"]
    assert any("patrol" in str(o).lower() for e in asked for o in e.options), (
        "no question offers to patrol where the leg ends"
    )


def test_a_boat_that_stops_to_patrol_flips_in_the_done_section_15_1(
    silent_war: Checked,
) -> None:
    # [15.1] "... or flips to its Patrol side if it intends to patrol next turn", in "the
    # "Done" section of the ending OpArea"; the Base it was bound for is no longer its goal.
    game = Game(silent_war, [0] * 6, go=True, target="Brisbane", intent="patrol here")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)
    assert sub.attrs["base"] is None and sub.attrs["area"] is not None
    assert str(sub.attrs["side"]) == "patrol" and str(sub.attrs["section"]) == "done"
    assert sub.attrs["bound_for"] is None and sub.attrs["rtb"] is None
    assert sub.attrs["destination"] == sub.attrs["area"]  # it patrols where it stopped


def test_a_boat_in_transit_goes_on_by_default_15_1(silent_war: Checked) -> None:
    # [15.1] "The submarine remains Transit side up if it intends to transit further next
    # turn": unless the player says otherwise, it keeps the intention it set out with.
    game = Game(silent_war, [0] * 6, go=True, target="Brisbane")
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)
    (asked,) = game.events("decision", name="intent")
    assert "Brisbane" in str(asked.choice) and "patrol" not in str(asked.choice)
    assert str(sub.attrs["side"]) == "transit" and str(sub.attrs["section"]) == "done"
    assert sub.attrs["bound_for"] == game.v("base", "Brisbane")


def test_a_wolfpack_that_stops_to_patrol_stops_together_15_1_24_2(silent_war: Checked) -> None:
    # [24.2] "all members of a Wolfpack move together as if they were a single unit": when
    # its leader stops to patrol where the leg ends [15.1], the pack patrols there with it.
    game = Game(silent_war, [0] * 12, go=True, target="Marianas", intent="patrol here")
    distance = distance_to_base(game, "Pearl Harbor", "Marianas")
    pack = [
        ready_at(game, n, "Pearl Harbor", wolfpack=1, speed=2, range=8)
        for n in ("Tang", "Wahoo", "Drum")
    ]
    assert distance > 2  # the premise: the Marianas are more than one leg away
    game.call("unit_transit_movement", sub=pack[0])
    assert len(game.events("decision", name="intent")) == 1  # asked once, of the pack
    areas = {s.attrs["area"] for s in pack}
    assert len(areas) == 1 and None not in areas
    assert str(next(iter(areas))) != "Marianas"
    assert all(str(s.attrs["side"]) == "patrol" for s in pack)
    assert all(str(s.attrs["section"]) == "done" for s in pack)
