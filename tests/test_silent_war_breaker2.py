"""Outside-reader tests for Silent War 2.1 Base-to-Base transfer and storms.

Cases written from the rule text (seed 000, Silent War 2.0 rev 2.1) BEFORE reading
the rulebook code.  Each test quotes the sentence it checks; expected values come
from the text.

Planned cases (rule: what the text says):
 1. [15.1] "a submarine starting in the Ready for Sea Box of a Base may (player's
    choice) move any number of OpAreas up to its speed" -- a transfer never moves
    more OpAreas than speed in one turn.
 2. [15.1] Note: "departure from a permanent base to an adjacent OpArea is counted
    against its speed rating" -- leaving Pearl counts as one of the speed steps.
 3. [15.1] Note: "departure from a Special Mission Zone (SMZ) base to a connected
    OpArea is not" -- leaving a tender does not count.
 4. [15.11]/[15.26] "A submarine may never move farther from any active base than
    its range value." -- a transfer never passes an OpArea beyond range.
 5. [15.23] "If the submarine cannot return to base in one move, it is moved to the
    closest OpArea it can reach and placed in the "Done" section" (by analogy: a
    transfer that is too long stops short, Transit side up, in an OpArea).
 6. [15.1]/[19.1] "using the OpArea with the lowest number on the line for the
    current War Period which contains a red box through or to which the submarine
    moved. Do not use the OpArea from which the submarine started."
 7. [7.21] Tropical Storm: "Transit Events [19.1] only occur in the OpArea on a
    d10 roll of 0-3."
 8. [7.21] Typhoon: "Transit Events cannot occur in the OpArea."
 9. [7.21] TS damage: "When a submarine is about to enter a Base or Tender ... if
    it ... has transited through or from a Tropical Storm OpArea ... roll a d10.
    On a result of 0, the submarine receives a Damaged marker."  (transfer through
    a TS to a Base)
10. [7.21] Typhoon: undamaged boat "On a result of 0-1, the submarine receives a
    Damaged marker and a second d10 ... If the result is > the defense rating of
    the submarine, the submarine is lost." -- a boat that stops short IN a Typhoon.
11. Player choice: storms never remove a legal move (the text forbids no move
    into a storm; [7.2] Note: storms "cannot be avoided").
12. [24.2] "Wolfpacks cannot transfer from Base to Base".
13. [10.3] "Submarines waiting in a Repair Box may not leave a Base." -- only Ready
    for Sea boats transfer.
14. [15.26] base falls while a boat is under way, leaving it out of range: "is
    damaged and must RTB to the nearest base at a speed one less than its printed
    speed (never less than one)".
15. [15.25] Cautious Transit: "subtract one from the Transit Event check" when
    moving a single OpArea.
16. [21.3] "If a Typhoon marker is in an OpArea adjacent to a Major Base, that Base
    may not make any repair rolls [10.0] or form Wolfpacks [24.0] this turn."
"""

from __future__ import annotations

from typing import Any

from test_silent_war_bases import forward_base
from test_silent_war_rules import Game

from rulekit.book.checker import Checked

# The map is not in the rules text ([2.1] base_areas, routes are the rulebook's, partly marked
# "~" invented). The tests read the way Pearl Harbor -> Brisbane from the rulebook once and
# check the mechanism the text prints on it: Hawaiian Islands, Gilberts, Solomons, Coral Sea.
WAY = ["Hawaiian Islands", "Gilberts", "Solomons", "Coral Sea"]


def rolls(game: Game, rule: str) -> list[Any]:
    return [e for e in game.events("roll") if e.rule == rule]


def asked(game: Game, name: str) -> list[Any]:
    return game.events("decision", name=name)


def options(game: Game, name: str) -> list[str]:
    (decision,) = asked(game, name)
    return [str(o) for o in decision.options]


def game_with(book: Checked, dice: list[int], *bases: str, **answers: Any) -> Game:
    game = Game(book, dice, **answers)
    game.set(active_bases=tuple(game.v("base", b) for b in bases))
    return game


def ready_at(game: Game, name: str, base: str, **attrs: Any) -> Any:
    sub = game.call(
        "start_at_base", name=name, at=game.v("base", base), box=game.v("base_box", "Ready for Sea")
    )
    sub.attrs.update(attrs)
    return sub


def storms(game: Game, *where: tuple[str, str]) -> None:
    game.set(
        storms=[
            game.interp.call(
                "storm", {"area": game.v("area", a), "level": game.v("storm_level", level)}
            )
            for a, level in where
        ]
    )


def test_premise_the_rulebook_map_way_from_pearl_to_brisbane(silent_war: Checked) -> None:
    game = game_with(silent_war, [], "Pearl Harbor", "Brisbane")
    sub = ready_at(game, "Tautog", "Pearl Harbor", range=8)
    gates = game.call("base_areas", base=game.v("base", "Brisbane"))
    assert [str(a) for a in game.call("transfer_way", sub=sub, gates=gates)] == WAY


# ---- 1. speed, counted at departure ----------------------------------------------------------


def test_departure_from_a_permanent_base_counts_against_speed_15_1(silent_war: Checked) -> None:
    # [15.1] "move any number of OpAreas up to its speed. Note: departure from a permanent base
    # to an adjacent OpArea is counted against its speed rating". Speed 3 out of Pearl Harbor:
    # Hawaiian Islands (1), Gilberts (2), Solomons (3). Next turn: Coral Sea (1), Brisbane (2).
    game = game_with(silent_war, [0] * 4, "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=3, range=8)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Solomons"
    assert str(sub.attrs["side"]) == "transit" and str(sub.attrs["section"]) == "done"
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["base"]) == "Brisbane" and sub.attrs["area"] is None


def test_departure_from_a_forward_base_is_free_15_1_note(silent_war: Checked) -> None:
    # [15.1] Note: "departure from a Special Mission Zone (SMZ) base to a connected OpArea is
    # not [counted] since the SMZ is considered to be "in" the OpArea." Speed 1 out of Midway
    # (in the Hawaiian Islands): the Hawaiian Islands free, then one OpArea: the Gilberts.
    game = game_with(silent_war, [0] * 4, "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    midway = forward_base(game, "Midway")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    sub.attrs.update(base=None, tender=midway)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts"


# ---- 2. range ----------------------------------------------------------------------------------


def test_range_counts_from_any_active_base_including_the_destination_15_11(
    silent_war: Checked,
) -> None:
    # [15.11] "A submarine may never move farther from any active base than its range value."
    # On the way no OpArea is more than 2 from the nearer of Pearl Harbor and Brisbane (the
    # Solomons are 3 from Pearl but 2 from Brisbane): range 2 may sail, range 1 may not.
    for rng, offered in ((2, True), (1, False)):
        game = game_with(silent_war, [0] * 4, "Pearl Harbor", "Brisbane", go=True)
        sub = ready_at(game, "Tautog", "Pearl Harbor", range=rng)
        game.call("deploy", sub=sub)
        assert ("Brisbane" in options(game, "target")) == offered, rng


# ---- 3. Transit Event checks on the way -------------------------------------------------------


def test_transit_event_check_uses_oparea_moved_through_or_to_not_the_start_15_1(
    silent_war: Checked,
) -> None:
    # [15.1] "using the OpArea with the lowest number on the line for the current War Period
    # which contains a red box through or to which the submarine moved. Do not use the OpArea
    # from which the submarine started." Speed 2: turn 1 Hawaiian Islands, Gilberts; turn 2
    # from the Gilberts: Solomons, Coral Sea (the Gilberts not counted); turn 3 from the Coral
    # Sea into Brisbane: no OpArea moved through or to, no check ([15.23] bullet, for RTB:
    # "moving from an OpArea to an adjacent Base ..., no Transit Event roll is made").
    game = game_with(silent_war, [0] * 6, "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    seen: list[list[str]] = []
    for _ in range(3):
        game.call("transit_movement", sub=sub)
        game.call("prep_phase")
        seen.append(
            [
                str(a)
                for c in game.events("call", procedure="governing_area")[len(seen) :]
                for a in c.args["passed"]
            ]
        )
    assert seen[0] == WAY[:2]
    assert seen[1] == WAY[2:4]
    assert str(sub.attrs["base"]) == "Brisbane"
    assert len(rolls(game, "19.1")) == 2  # none for the last leg


def test_tropical_storm_transit_events_only_on_0_to_3_7_21(silent_war: Checked) -> None:
    # [7.21] Tropical Storm: "Transit Events [19.1] only occur in the OpArea on a d10 roll of
    # 0-3." War Period 1, a spotted Transit side boat: 9 -1 +1 = 9, red (red starts at 9 on the
    # rulebook's provisional chart for the Gilberts, read here). Then the storm's d10: 4, no
    # event (no Transit Event Table lookup); 3, the event happens (two lookup rolls).
    for storm_die, event in ((4, False), (3, True)):
        game = game_with(silent_war, [9, storm_die, 0, 0], "Pearl Harbor")
        assert game.call("red_start", a=game.v("area", "Gilberts")) == 9
        storms(game, ("Gilberts", "Tropical Storm"))
        sub = game.sub_at_sea("Tautog", "Hawaiian Islands", spotted=True)
        sub.attrs["side"] = game.v("side", "transit")
        game.call("transit_event_check", sub=sub, passed=(game.v("area", "Gilberts"),))
        lookups = [e for e in game.events("lookup") if e.table == "transit_event_table"]
        assert (len(lookups) == 1) == event, storm_die
        assert game.dice_left() == (0 if event else 2)


def test_typhoon_no_transit_event_can_occur_7_21(silent_war: Checked) -> None:
    # [7.21] Typhoon: "Transit Events cannot occur in the OpArea." No die is rolled.
    game = game_with(silent_war, [9, 9, 9], "Pearl Harbor")
    storms(game, ("Gilberts", "Typhoon-1"))
    sub = game.sub_at_sea("Tautog", "Hawaiian Islands", spotted=True)
    result = game.call("transit_event_check", sub=sub, passed=(game.v("area", "Gilberts"),))
    assert result is None and game.dice_left() == 3


# ---- 4. storms on a transfer --------------------------------------------------------------------


def test_a_transfer_through_a_typhoon_checks_storm_damage_at_the_done_section_7_21(
    silent_war: Checked,
) -> None:
    # [7.21] "When an undamaged submarine is about to ... be placed in the "Done" section of an
    # OpArea, if it is in or has transited through or from a Typhoon OpArea, roll a d10 ... On a
    # result of 0-1, the submarine receives a Damaged marker and a second d10 is rolled ... If
    # the result is > the defense rating of the submarine, the submarine is lost."
    # Speed 3 through a Typhoon in the Gilberts to the (calm) Solomons; Transit Event check 0
    # (governing: the calm Hawaiian Islands), storm 1 (damaged), second 3 (= Defense 3: kept).
    # The player sails all three OpAreas ([15.1] "any number of OpAreas up to its speed": the
    # default player would stop short of the Typhoon).
    game = game_with(
        silent_war,
        [0, 1, 3],
        "Pearl Harbor",
        "Brisbane",
        go=True,
        target="Brisbane",
        areas_moved="3",
    )
    storms(game, ("Gilberts", "Typhoon-1"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=3, range=8)
    assert sub.attrs["defense"] == 3
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Solomons"
    assert [r.natural for r in rolls(game, "7.21")] == [1, 3]
    assert sub.attrs["damage"] == 1 and str(sub.attrs["status"]) == "active"
    assert game.dice_left() == 0


def test_a_boat_that_stops_short_in_a_typhoon_is_checked_and_may_be_lost_7_21(
    silent_war: Checked,
) -> None:
    # Same sentence, the boat ending its move IN the Typhoon: speed 1 out of Pearl Harbor into
    # the Hawaiian Islands (Typhoon): no Transit Event (Typhoon), storm 0 then 4 > Defense 3:
    # lost. The player may still sail (the Typhoon next to its Base forbids nothing: [21.3]
    # only stops repair rolls and Wolfpack formation there).
    game = game_with(silent_war, [0, 4], "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    storms(game, ("Hawaiian Islands", "Typhoon-2"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    game.call("transit_movement", sub=sub)
    assert options(game, "go") == ["False", "True"] or set(options(game, "go")) == {"False", "True"}
    assert "Brisbane" in options(game, "target") and "Hawaiian Islands" in options(game, "target")
    assert rolls(game, "19.1") == []
    assert str(sub.attrs["status"]) == "sunk"
    assert game.dice_left() == 0


def test_leaving_a_tropical_storm_oparea_on_a_transfer_checks_storm_damage_7_21(
    silent_war: Checked,
) -> None:
    # [7.21] Tropical Storm: "if it is in or has transited through or from a Tropical Storm
    # OpArea ..., roll a d10. On a result of 0, the submarine receives a Damaged marker."
    # Turn 1 speed 2 to the Gilberts (calm); a Tropical Storm forms there; turn 2 from the
    # Gilberts to the calm Coral Sea: Transit Event check 0, storm 0: Damaged.
    game = game_with(silent_war, [0, 0, 0], "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts" and sub.attrs["damage"] == 0
    storms(game, ("Gilberts", "Tropical Storm"))
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Coral Sea"
    assert [r.natural for r in rolls(game, "7.21")] == [0]
    assert sub.attrs["damage"] == 1


def test_the_player_may_still_move_into_a_typhoon_on_deployment_15_1(silent_war: Checked) -> None:
    # The default player stops short of a Typhoon; the text forbids no move into one ([7.2]
    # Note: storms "cannot be avoided"; [15.1] "any number of OpAreas up to its speed").
    # Speed 3 toward the Solomons with a Typhoon in the Gilberts: the player may move 1, 2 or 3.
    game = game_with(
        silent_war,
        [0, 5],
        "Pearl Harbor",
        go=True,
        target="Solomons",
        cautious=False,
        areas_moved="3",
    )
    storms(game, ("Gilberts", "Typhoon-1"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=3, range=8)
    game.call("transit_movement", sub=sub)
    assert options(game, "areas_moved") == ["1", "2", "3"]
    assert str(sub.attrs["area"]) == "Solomons"
    assert str(sub.attrs["status"]) == "active"


def test_the_player_may_still_name_a_base_behind_a_typhoon_15_23(silent_war: Checked) -> None:
    # [15.23] "moved via OpAreas to a destination Base as directly as possible within its
    # range value": any active Base in range is the player's to name, storm or not.
    game = game_with(silent_war, [], "Pearl Harbor", "Brisbane", rtb_base="Pearl Harbor")
    storms(game, ("Marshalls", "Typhoon-1"))
    sub = game.sub_at_sea("Tautog", "Marianas", damage=1, range=8)
    game.call("voluntary_rtb", sub=sub)
    game.call("choose_rtb_destination", sub=sub)
    assert {"Pearl Harbor", "Brisbane"} <= set(options(game, "rtb_base"))
    assert str(sub.attrs["bound_for"]) == "Pearl Harbor"


# ---- 5. who may transfer -------------------------------------------------------------------------


def test_a_boat_in_a_repair_box_may_not_leave_10_3(silent_war: Checked) -> None:
    # [10.3] "Submarines waiting in a Repair Box may not leave a Base." [15.1] only "a
    # submarine starting in the Ready for Sea Box of a Base".
    for box in ("Repair 1", "Broom", "Pier Side"):
        game = game_with(
            silent_war, [0] * 4, "Pearl Harbor", "Brisbane", go=True, target="Brisbane"
        )
        sub = ready_at(game, "Tautog", "Pearl Harbor", box=game.v("base_box", box))
        game.call("transit_movement", sub=sub)
        assert str(sub.attrs["base"]) == "Pearl Harbor" and str(sub.attrs["box"]) == box
        assert asked(game, "target") == []


def test_a_wolfpack_member_may_bounce_to_a_new_base_after_a_patrol_24_2(
    silent_war: Checked,
) -> None:
    # [24.2] "Wolfpacks cannot transfer from Base to Base, but they may "bounce" to a new base
    # after spending at least one turn in "patrol" mode." A pack member returning from patrol
    # may name Brisbane.
    game = game_with(silent_war, [], "Pearl Harbor", "Brisbane")
    sub = game.sub_at_sea("Tautog", "Solomons", wolfpack=1, range=8)
    game.call("voluntary_rtb", sub=sub)
    game.call("choose_rtb_destination", sub=sub)
    assert "Brisbane" in options(game, "rtb_base")


# ---- 6. a Base that falls on the way ---------------------------------------------------------


def test_destination_falls_and_the_boat_is_out_of_range_15_26(silent_war: Checked) -> None:
    # [15.26] "some events may precipitate a submarine being out of range of a base (such as
    # fall of a base). A submarine that is discovered to be out of range of a base is damaged
    # and must RTB to the nearest base at a speed one less than its printed speed (never less
    # than one)." Speed 3, range 2: in the Solomons (3 from Pearl, 2 from Brisbane) when
    # Brisbane falls: damaged, RTB to Pearl Harbor at speed 2: Gilberts, Hawaiian Islands.
    game = game_with(silent_war, [0] * 6, "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=3, range=2)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Solomons"
    game.call("base_falls", at=game.v("base", "Brisbane"))
    assert sub.attrs["damage"] == 1 and sub.attrs["rtb"] is not None
    assert sub.attrs["bound_for"] is None or str(sub.attrs["bound_for"]) == "Pearl Harbor"
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Hawaiian Islands"


def test_destination_falls_and_the_boat_sails_for_another_base_15_1(silent_war: Checked) -> None:
    # [4.0] 15.0: a Transit side boat may "continue on to another OpArea or Base". Brisbane
    # falls while the boat (range 8, in range of Pearl) is in the Gilberts: no damage, no RTB;
    # the player names another Base (Pearl Harbor among them).
    game = game_with(
        silent_war,
        [0] * 6,
        "Pearl Harbor",
        "Brisbane",
        "Fremantle",
        go=True,
        target="Brisbane",
        transfer_base="Fremantle",
    )
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts"
    game.call("base_falls", at=game.v("base", "Brisbane"))
    assert sub.attrs["damage"] == 0 and sub.attrs["rtb"] is None
    game.call("prep_phase")
    game.call("transit_movement", sub=sub)
    assert {"Pearl Harbor", "Fremantle"} <= set(options(game, "transfer_base"))
    assert str(sub.attrs["bound_for"]) == "Fremantle" and sub.attrs["rtb"] is None


# ---- 7. Bases in Typhoons ------------------------------------------------------------------------


def test_no_repair_rolls_at_a_base_next_to_a_typhoon_21_3(silent_war: Checked) -> None:
    # [21.3] "If a Typhoon marker is in an OpArea adjacent to a Major Base, that Base may not
    # make any repair rolls [10.0] or form Wolfpacks [24.0] this turn."
    game = game_with(silent_war, [0, 0], "Pearl Harbor")
    storms(game, ("Hawaiian Islands", "Typhoon-1"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", box=game.v("base_box", "Repair 1"))
    game.call("repair_phase")
    assert str(sub.attrs["box"]) == "Repair 1" and game.dice_left() == 2


# ---- 8. Forward Bases: the OpArea a tender's boat starts from ---------------------------------


def test_tender_to_pearl_through_its_own_oparea_rolls_no_transit_event_15_1(
    silent_war: Checked,
) -> None:
    # [15.1] Note: "departure from a Special Mission Zone (SMZ) base to a connected OpArea is
    # not [counted against speed] since the SMZ is considered to be "in" the OpArea."; [15.1]
    # "Perform a Transit Event check ... using the OpArea ... through or to which the submarine
    # moved. Do not use the OpArea from which the submarine started." Midway is "in" the
    # Hawaiian Islands, next to Pearl Harbor: the boat moves through or to no other OpArea, so
    # no check ([15.23] the same for RTB: "If the submarine is moving from an OpArea to an
    # adjacent Base (such as from the Hawaiian Islands to Pearl Harbor), no Transit Event roll
    # is made").
    game = game_with(silent_war, [9, 9, 9], "Pearl Harbor", go=True, target="Pearl Harbor")
    midway = forward_base(game, "Midway")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8)
    sub.attrs.update(base=None, tender=midway, spotted=True)
    game.call("transit_movement", sub=sub)
    assert rolls(game, "19.1") == []
    assert str(sub.attrs["base"]) == "Pearl Harbor"


def test_tender_transfer_governing_oparea_excludes_the_tenders_oparea_15_1(
    silent_war: Checked,
) -> None:
    # Same sentences: out of Midway (in the Hawaiian Islands) toward Brisbane at speed 1, the
    # boat moves to the Gilberts; the check uses the Gilberts, not the Hawaiian Islands it
    # started in.
    game = game_with(silent_war, [0] * 4, "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    midway = forward_base(game, "Midway")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    sub.attrs.update(base=None, tender=midway)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts"
    (governing,) = game.events("call", procedure="governing_area")
    assert [str(a) for a in governing.args["passed"]] == ["Gilberts"]


def test_transfer_to_a_forward_base_does_not_add_2_21_11(silent_war: Checked) -> None:
    # [21.11] "Submarines moving to a Forward Base do not add +2 to their Transit Event check
    # as per [20.3]." Pearl Harbor to Midway (in the Hawaiian Islands): one check, no +2.
    game = game_with(silent_war, [0] * 3, "Pearl Harbor", go=True, target="Midway")
    forward_base(game, "Midway")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    game.call("transit_movement", sub=sub)
    assert sub.attrs["tender"] is not None
    (check,) = rolls(game, "19.1")
    assert "20.3" not in [m.rule for m in check.modifiers]


# ---- 9. "any number of OpAreas up to its speed" on a transfer ---------------------------------


def test_a_transfer_may_stop_short_of_a_typhoon_15_1(silent_war: Checked) -> None:
    # [15.1] "a submarine starting in the Ready for Sea Box of a Base may (player's choice)
    # move any number of OpAreas up to its speed." Speed 3 out of Pearl Harbor for Brisbane, a
    # Typhoon in the Solomons (the third OpArea): the player may stop after two, in the
    # Gilberts (as the default player's own advice does on a deployment: calm_leg).
    game = game_with(
        silent_war,
        [0] * 4,
        "Pearl Harbor",
        "Brisbane",
        go=True,
        target="Brisbane",
        cautious=False,
        areas_moved="2",
    )
    storms(game, ("Solomons", "Typhoon-1"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=3, range=8)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts"


# ---- 10. the route between equally direct ways is the player's ------------------------------


def test_the_player_may_take_the_equally_direct_way_through_a_typhoon_15_23(
    silent_war: Checked,
) -> None:
    # [15.23] "the submarine is moved via OpAreas to a destination Base as directly as
    # possible": from the Bonins both the Empire Pacific/North Pacific and the Marianas/
    # Marshalls ways are as direct (tests/test_silent_war_storms.py). The default player's
    # advice takes the calm one; the player may take either: some decision must offer the North
    # Pacific (with the Typhoon).
    game = game_with(silent_war, [0] * 6, "Pearl Harbor")
    storms(game, ("North Pacific", "Typhoon-1"))
    sub = game.sub_at_sea("Tautog", "Bonins", damage=1)
    sub.attrs["section"] = game.v("section", "operating")
    game.call("voluntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    offered = {str(o) for d in game.events("decision") for o in d.options}
    assert "North Pacific" in offered
    # the default player's advice is the calm way: no storm check on the way
    assert rolls(game, "7.21") == []


def test_the_way_through_the_typhoon_when_the_player_takes_it_15_23_7_21(
    silent_war: Checked,
) -> None:
    # The same RTB, the player going by the North Pacific: [7.21] "When a submarine with a
    # Damaged marker is about to ... be placed in the "Done" section of an OpArea, if it is in
    # or has transited through or from a Typhoon OpArea, roll a d10" (0: not > Defense 3 + 1).
    # At its full speed of 2 (not a single OpArea [15.25]) it ends in the North Pacific.
    game = game_with(silent_war, [0] * 6, "Pearl Harbor", via="North Pacific", cautious=False)
    storms(game, ("North Pacific", "Typhoon-1"))
    sub = game.sub_at_sea("Tautog", "Bonins", damage=1)
    sub.attrs["section"] = game.v("section", "operating")
    game.call("voluntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert str(sub.attrs["area"]) == "North Pacific"
    assert [r.natural for r in rolls(game, "7.21")] == [0]
    assert str(sub.attrs["status"]) == "active"


# ---- 11. more on the way -------------------------------------------------------------------------


def test_an_rtb_result_on_a_transfer_stops_where_the_player_decides_among_ties_19_11(
    silent_war: Checked,
) -> None:
    # [19.11] "If a submarine receives an involuntary RTB result ..., the submarine is placed in
    # the Done section ... of the OpArea used to determine the Transit Event check. If more than
    # one OpArea could have been used (lowest number ... which contains a red box is the same),
    # the submarine is placed in whichever OpArea the player decides." The Hawaiian Islands and
    # the Gilberts both start red at 9 (the rulebook's provisional charts, read in the test).
    # Spotted, War Period 1: 9 -1 +1 = 9; Transit Event Table row 9, column 7 (the rulebook's
    # provisional table): RTB.
    game = game_with(
        silent_war,
        [9, 9, 7],
        "Pearl Harbor",
        "Brisbane",
        go=True,
        target="Brisbane",
        rtb_area="Gilberts",
    )
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=2, range=8, spotted=True)
    assert [game.call("red_start", a=game.v("area", a)) for a in WAY[:2]] == [9, 9]
    game.call("transit_movement", sub=sub)
    lookups = [e.result for e in game.events("lookup") if e.table == "transit_event_table"]
    assert lookups == ["RTB"]  # the premise
    assert set(options(game, "rtb_area")) == {"Hawaiian Islands", "Gilberts"}
    assert str(sub.attrs["area"]) == "Gilberts" and str(sub.attrs["section"]) == "done"
    assert str(sub.attrs["rtb"]) == "involuntary" and sub.attrs["bound_for"] is None


def test_entering_a_tender_after_a_tropical_storm_checks_storm_damage_7_21(
    silent_war: Checked,
) -> None:
    # [7.21] "When a submarine is about to enter a Base or Tender ... if it is in or has
    # transited through or from a Tropical Storm OpArea ..., roll a d10. On a result of 0, the
    # submarine receives a Damaged marker." Pearl Harbor to Midway through the Hawaiian Islands
    # (Tropical Storm): Transit Event check 0, storm 0: Damaged (then [21.23] minor repairs).
    game = game_with(silent_war, [0, 0, 0, 0], "Pearl Harbor", go=True, target="Midway")
    forward_base(game, "Midway")
    storms(game, ("Hawaiian Islands", "Tropical Storm"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    game.call("transit_movement", sub=sub)
    assert [r.natural for r in rolls(game, "7.21")] == [0]
    # damaged on entering: [21.23] "For each damage marker, roll on the Submarine Damage Table"
    assert [e.table for e in game.events("lookup")].count("damage_table") == 1


def test_leaving_a_tender_in_a_typhoon_zone_checks_storm_damage_7_21(
    silent_war: Checked,
) -> None:
    # [7.21] Typhoon: "The following effects are in place in the OpArea and any connected SMZs:
    # ... When an undamaged submarine is about to ... be placed in the "Done" section of an
    # OpArea, if it is in or has transited through or from a Typhoon OpArea, roll a d10 ...".
    # Midway's SMZ is linked to the North Pacific (Typhoon) and the Hawaiian Islands: a boat
    # sailing from Midway by the Hawaiian Islands to the Gilberts left a zone under the
    # Typhoon. Transit Event check 0, storm 0 (damaged), 9 > Defense 3: lost. (Our reading,
    # provisional in the rulebook: movement.rk `tender_departure_storms`.)
    game = game_with(silent_war, [0, 0, 9], "Pearl Harbor", "Brisbane", go=True, target="Brisbane")
    midway = forward_base(game, "Midway")
    storms(game, ("North Pacific", "Typhoon-1"))
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    sub.attrs.update(base=None, tender=midway)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts"
    assert str(sub.attrs["status"]) == "sunk"


def test_deploying_from_a_tender_to_patrol_excludes_the_tenders_oparea_15_1(
    silent_war: Checked,
) -> None:
    # [15.1] "Do not use the OpArea from which the submarine started", the SMZ being "in" the
    # OpArea (Note). Midway to the Gilberts at speed 1: the check uses the Gilberts only.
    game = game_with(silent_war, [0] * 4, "Pearl Harbor", go=True, target="Gilberts")
    midway = forward_base(game, "Midway")
    sub = ready_at(game, "Tautog", "Pearl Harbor", speed=1, range=8)
    sub.attrs.update(base=None, tender=midway)
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Gilberts"
    (governing,) = game.events("call", procedure="governing_area")
    assert [str(a) for a in governing.args["passed"]] == ["Gilberts"]


def test_no_wolfpack_forms_at_a_base_next_to_a_typhoon_21_3(silent_war: Checked) -> None:
    # [21.3] "If a Typhoon marker is in an OpArea adjacent to a Major Base, that Base may not
    # make any repair rolls [10.0] or form Wolfpacks [24.0] this turn." Three boats Ready for
    # Sea at Pearl Harbor in November 1943 ([24.1] packs from October 1943): offered when calm,
    # not with a Typhoon in the Hawaiian Islands.
    for typhoon in (False, True):
        game = game_with(silent_war, [], "Pearl Harbor", form=False)
        game.set(year=1943, month="Nov")
        if typhoon:
            storms(game, ("Hawaiian Islands", "Typhoon-1"))
        for name in ("Tang", "Wahoo", "Drum"):
            ready_at(game, name, "Pearl Harbor")
        game.call("wolfpack_formation_phase")
        assert (asked(game, "form") == []) == typhoon, typhoon
