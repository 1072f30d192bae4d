"""Silent War 2.1: one test for each rule of docs/silent_war_coverage.md that read as faithful
but had no test of its own (issue 11 §1: "the test that shows it").

Each situation is written from the rules text (../shared/seeds/000_0b28bf2899953500.txt) and
the numbers asserted are the text's; an unprinted chart's value is read from the rulebook.
"""

from __future__ import annotations

from typing import Any

from test_silent_war_rules import Game

from rulekit.book.checker import Checked


def test_an_rtb_boat_never_patrols_again_before_a_base_15_2(silent_war: Checked) -> None:
    # [15.2] "Submarines marked with an RTB marker can never return to patrol status without
    # returning to a Base first." [15.21] "Flip the submarine to its Transit side, place a
    # voluntary RTB marker on it"
    game = Game(silent_war, [])
    operating = game.v("section", "operating")
    sub = game.sub_at_sea("Tautog", "Marshalls", section=operating)
    game.call("voluntary_rtb", sub=sub)
    assert (str(sub.attrs["side"]), str(sub.attrs["rtb"])) == ("transit", "voluntary")
    game.call("patrol_movement", sub=sub)
    game.call("search_and_combat", sub=sub)
    assert game.events("roll") == [] and game.events("decision") == []
    assert str(sub.attrs["area"]) == "Marshalls"


def test_a_first_damage_marker_rolls_nothing_18_1(silent_war: Checked) -> None:
    # [18.1] "If damaged, a Damage marker is placed on the submarine."
    game = Game(silent_war, [])
    sub = game.sub_at_sea("Tautog", "Marshalls")
    game.call("damage_submarine", sub=sub)
    assert sub.attrs["damage"] == 1 and str(sub.attrs["status"]) == "active"
    assert game.events("roll") == []


def test_a_damaged_boat_rolls_the_damage_table_at_its_base_18_11(silent_war: Checked) -> None:
    # [18.11] "Upon arriving at a Base, damaged submarines must roll one d10 on the Damage
    # Table. The results of this die roll places the submarine in one of the Repair Boxes or
    # into the Broom Box."
    for die in range(10):
        result = str(Game(silent_war, [die]).call("damage_table"))
        game = Game(silent_war, [die])
        sub = game.sub_at_sea("Tautog", "Hawaiian Islands", damage=1)
        game.call("enter_base", sub=sub, at=game.v("base", "Pearl Harbor"))
        box = "Broom" if result == "Superficial Damage" else result
        assert str(sub.attrs["box"]) == box and sub.attrs["damage"] == 0


def test_spotted_twice_is_one_marker_and_a_pack_is_spotted_together_23_1_24_6(
    silent_war: Checked,
) -> None:
    # [23.1] "Additional Spotted markers have no effect." [24.6] "Any SPOTTED result obtained
    # by a member of a Wolfpack results in all members of that Wolfpack being spotted."
    game = Game(silent_war, [])
    boats = [game.sub_at_sea(n, "Marianas", wolfpack=1) for n in ("Tautog", "Thresher", "Gudgeon")]
    loner = game.sub_at_sea("Triton", "Marianas")
    game.call("spot", sub=boats[0])
    game.call("spot", sub=boats[0])
    assert [b.attrs["spotted"] for b in boats] == [True, True, True]
    assert loner.attrs["spotted"] is False


BOATS = [
    *("Tautog", "Thresher", "Gudgeon", "Triton", "Pollack", "Plunger", "Gato", "Growler"),
    *("Finback", "Drum", "Flying Fish", "Greenling", "Grouper", "Wahoo", "Silversides"),
]


def test_repair_capacity_and_the_hold_box_10_1_10_21(silent_war: Checked) -> None:
    # [10.1] "The Base Max Repair Capacity is the total number of submarines that may be in
    # boxes "1", "2", and "3" at any one time." [10.21] "When submarines are repaired and there
    # is room for more to be repaired, submarines may be advanced from the Hold Box into the
    # "3" box ... but must wait until the following turn to roll for repair."
    game = Game(silent_war, [])
    pearl = game.v("base", "Pearl Harbor")
    capacity = game.call("repair_capacity", at=pearl)
    names = BOATS  # more than Pearl Harbor's Max Repair Capacity (provisional)
    repairing = [
        game.call("start_at_base", name=n, at=pearl, box=game.v("base_box", "Repair 1"))
        for n in names[:capacity]
    ]
    held = game.call(
        "start_at_base", name=names[capacity], at=pearl, box=game.v("base_box", "Hold")
    )
    # every boat in box 1 fails its roll (a die above the box's number): the base stays full
    game.interp.dice.values = [9] * capacity
    game.call("repair_at", at=pearl)
    assert str(held.attrs["box"]) == "Hold"
    # one is repaired (a 0 is = or < any Repair number): room for the held boat, no roll for it
    game.interp.dice.values = [0] + [9] * (capacity - 1)
    game.interp.dice.used = 0
    game.call("repair_at", at=pearl)
    assert str(repairing[0].attrs["box"]) == "Broom"
    assert str(held.attrs["box"]) == "Repair 3"
    assert game.dice_left() == 0  # capacity rolls: none for the boat that moved up


def full_pearl(game: Game) -> list[Any]:
    """Pearl Harbor with a boat in Repair Box 1 for each place of its Max Repair Capacity."""
    pearl = game.v("base", "Pearl Harbor")
    names = BOATS  # more than Pearl Harbor's Max Repair Capacity (provisional)
    capacity = game.call("repair_capacity", at=pearl)
    return [
        game.call("start_at_base", name=n, at=pearl, box=game.v("base_box", "Repair 1"))
        for n in names[:capacity]
    ]


def test_a_boat_under_repair_may_be_shunted_to_the_hold_box_10_2(silent_war: Checked) -> None:
    # [10.2] "If a damaged submarine enters a base that is already at its Max Repair Capacity,
    # that submarine is placed in the Hold Box Transit side up. Alternatively, a submarine
    # currently in a Repair Box may be moved to the Hold Box to make room."
    game = Game(silent_war, [4], shunt="Gudgeon")
    pearl = game.v("base", "Pearl Harbor")
    repairing = full_pearl(game)
    wahoo = game.sub_at_sea("Wahoo", "Hawaiian Islands", damage=1)
    game.call("enter_base", sub=wahoo, at=pearl)
    (asked,) = game.events("decision", name="shunt")
    assert asked.options == [None, *[s.attrs["name"] for s in repairing]]
    gudgeon = next(s for s in repairing if s.attrs["name"] == "Gudgeon")
    assert (str(gudgeon.attrs["box"]), str(gudgeon.attrs["side"])) == ("Hold", "transit")
    assert str(wahoo.attrs["box"]).startswith("Repair ")  # its place, after the damage roll
    assert game.call("repairing", at=pearl) == len(repairing)  # still at capacity, not over
    assert game.dice_left() == 0


def test_by_default_the_damaged_boat_waits_in_the_hold_box_10_2(silent_war: Checked) -> None:
    game = Game(silent_war, [4])
    pearl = game.v("base", "Pearl Harbor")
    repairing = full_pearl(game)
    wahoo = game.sub_at_sea("Wahoo", "Hawaiian Islands", damage=1)
    game.call("enter_base", sub=wahoo, at=pearl)
    (asked,) = game.events("decision", name="shunt")
    assert asked.choice is None
    assert str(wahoo.attrs["box"]) == "Hold"
    assert all(str(s.attrs["box"]) == "Repair 1" for s in repairing)


def test_no_repairs_at_a_base_next_to_a_typhoon_21_3(silent_war: Checked) -> None:
    # [21.3] "If a Typhoon marker is in an OpArea adjacent to a Major Base, that Base may not
    # make any repair rolls [10.0]"
    game = Game(silent_war, [])
    pearl = game.v("base", "Pearl Harbor")
    game.set(active_bases=(pearl,))
    sub = game.call("start_at_base", name="Tautog", at=pearl, box=game.v("base_box", "Repair 1"))
    marker = game.interp.call(
        "storm",
        {"area": game.v("area", "Hawaiian Islands"), "level": game.v("storm_level", "Typhoon-1")},
    )
    game.set(storms=[marker])
    assert game.call("base_in_typhoon", at=pearl) is True
    game.call("repair_phase")
    assert game.events("roll") == [] and str(sub.attrs["box"]) == "Repair 1"


def test_boats_in_a_special_mission_zone_do_not_congregate_20_2(silent_war: Checked) -> None:
    # [20.2] submarines assigned to an active SMZ are exempt from Congregating Risk [22.1]:
    # "For each multiple of four submarines beyond the first four in an OpArea"
    game = Game(silent_war, [])
    game.set(war_period="WP3")
    marianas = game.v("area", "Marianas")
    names = ["Tautog", "Thresher", "Gudgeon", "Triton", "Pollack"]
    boats = [game.sub_at_sea(n, "Marianas") for n in names]
    assert game.call("congregating_risk", a=marianas) == 1  # five: one beyond four
    boats[0].attrs["smz"] = game.v("smz", "Saipan")
    assert game.call("congregating_risk", a=marianas) == 0


def test_rtb_damaged_drops_a_boat_out_of_its_pack_24_41(silent_war: Checked) -> None:
    # [24.41] a Wolfpack member with an "RTB/Damaged" Transit Event result leaves the pack
    game = Game(silent_war, [])
    boats = [
        game.sub_at_sea(n, "Marianas", wolfpack=1)
        for n in ("Tautog", "Thresher", "Gudgeon", "Triton")
    ]
    marianas = game.v("area", "Marianas")
    result = game.v("transit_result", "RTB/Damaged")
    game.call("apply_transit_event", sub=boats[0], result=result, governing=marianas)
    assert boats[0].attrs["wolfpack"] == 0 and boats[0].attrs["damage"] == 1
    assert [b.attrs["wolfpack"] for b in boats[1:]] == [1, 1, 1]


def test_patrol_movement_offers_opareas_only_and_staying_12_2_7_14(silent_war: Checked) -> None:
    # [12.2] no Patrol Movement into or out of a Base; [7.14] a submarine need not respond to
    # ULTRA: staying where it is is always an option.
    game = Game(silent_war, [])
    game.set(ultra_areas=(game.v("area", "Carolines"),))
    operating = game.v("section", "operating")
    sub = game.sub_at_sea("Tautog", "Marshalls", section=operating)
    game.call("patrol_movement", sub=sub)
    (asked,) = game.events("decision", name="move_to")
    assert asked.options[0] == "Marshalls"  # staying
    assert "Carolines" in asked.options
    bases = {"Pearl Harbor", "Fremantle", "Brisbane", "Manila", "Subic Bay", "Dutch Harbor"}
    assert not bases & set(asked.options)


def test_no_relegation_to_training_duty_while_in_overhaul_8_0(silent_war: Checked) -> None:
    # [8.0] "While in overhaul, a submarine cannot be removed from play via the War Event
    # "Relegation to Training Duty.""
    game = Game(silent_war, [])
    pearl = game.v("base", "Pearl Harbor")
    sub = game.call("start_at_base", name="Tautog", at=pearl)
    game.call("to_west_coast", sub=sub)
    game.call("relegation_to_training_duty")
    assert str(sub.attrs["status"]) == "active" and str(sub.attrs["box"]) == "U.S. West Coast"


def test_super_skipper_determination_14_5_25_1(silent_war: Checked) -> None:
    # [14.5]/[25.1] "If the submarine has sunk three (3) or more ships totaling 16,000 or more
    # tons during the Combat Phase, the submarine gains a Super Skipper ... with the +1 side";
    # "If the submarine already has a +1 Super Skipper, the Skipper is flipped to the +2 side."
    game = Game(silent_war, [0])
    game.set(skipper_pool=["Whitaker"])
    sub = game.sub_at_sea("Tautog", "Marshalls", sank=3, sank_tonnage=15)
    game.call("super_skipper_determination", sub=sub)
    assert sub.attrs["skipper"] == 0  # 15,000 tons: not enough
    sub.attrs.update(sank=2, sank_tonnage=30)
    game.call("super_skipper_determination", sub=sub)
    assert sub.attrs["skipper"] == 0  # two ships: not enough
    sub.attrs.update(sank=3, sank_tonnage=16)
    game.call("super_skipper_determination", sub=sub)
    assert (sub.attrs["skipper"], sub.attrs["skipper_name"]) == (1, "Whitaker")
    game.call("super_skipper_determination", sub=sub)
    assert sub.attrs["skipper"] == 2
    game.call("super_skipper_determination", sub=sub)
    assert sub.attrs["skipper"] == 2


def test_an_smz_raises_the_activity_level_by_one_20_4(silent_war: Checked) -> None:
    # [20.4] "Sparse becomes Low, Low becomes Moderate, Moderate becomes High. High remains
    # High and No Contact remains No Contact."
    game = Game(silent_war, [])
    printed = {
        "No Contact": "No Contact",
        "Sparse": "Low",
        "Low": "Moderate",
        "Moderate": "High",
        "High": "High",
    }
    for level, higher in printed.items():
        got = game.call("raised", level=game.v("activity_level", level))
        assert str(got) == higher


def test_a_tender_is_drawn_only_from_its_deployment_date_21_21(silent_war: Checked) -> None:
    # [21.21] "the player randomly selects a submarine tender and places it in the SMZ ... A
    # tender may not be added to the draw pile until its deployment date"
    game = Game(silent_war, [1])
    midway = game.v("smz", "Midway")
    dates = {
        name: (dict(game.call("tenders", name=name).fields)["year"], name)
        for name in game.state["tender_pool"]
    }
    first_year = min(year for year, _ in dates.values())
    late = [name for name, (year, _) in dates.items() if year > first_year]
    game.set(year=first_year, month="Dec", tender_pool=late)
    game.call("activate_forward_base", zone=midway)
    assert game.state["forward_bases"] == () and list(game.state["tender_pool"]) == late
    game.set(year=first_year + 3, month="Dec")
    game.call("activate_forward_base", zone=midway)
    (post,) = game.state["tender_posts"]
    assert post.get("zone") == midway and post.get("tender") in late
    assert post.get("tender") not in game.state["tender_pool"]


def test_a_damaged_ship_has_asw_zero_and_is_easier_to_hit_18_2(silent_war: Checked) -> None:
    # [2.3 B1] "The ASW value of a ship with a Damage marker is zero (0)." [18.2] / [14.16 B5]
    # a Damage marker on the target: -1 on its total.
    game = Game(silent_war)
    game.call("start_game")
    destroyer = next(
        u
        for cup in ("cup_a", "cup_b", "cup_c", "cup_d")
        for u in game.state[cup]
        if str(u.attrs["category"]) == "DD"
    )
    clear = game.v("weather", "clear")
    assert game.call("unit_asw", u=destroyer, weather=clear) > 0
    sub = game.sub_at_sea("Tautog", "Marshalls")
    destroyer.attrs.update(revealed=True, column=sub.attrs["column"], tdc=0, tdc_shown=True)
    game.set(display=[destroyer])
    whole = game.call("target_value", sub=sub, target=destroyer)
    destroyer.attrs["damaged"] = True
    assert game.call("unit_asw", u=destroyer, weather=clear) == 0
    damaged = game.call("target_value", sub=sub, target=destroyer)
    # the damaged ship's own ASW leaves the revealed ASW, and the marker takes one more off
    assert damaged == whole - destroyer.attrs["asw"] - 1


def drawn(game: Game) -> int:
    """Pieces taken from the cups by the last draw: placed on the display, or held (No TDC)."""
    return len(game.state["display"]) + len(game.state["held"])


def test_ultra_draws_one_more_from_each_cup_but_a_no_draw_13_2(silent_war: Checked) -> None:
    # [7.1] "patrols in those areas ... draw one (1) extra ship from each cup (unless "no draw"
    # (•))". The Engagement Table's C1 / Low line in War Period 1 (read from the rulebook):
    # cups A and B draw, C and D are "no draw".
    counts = None
    results = {}
    for ultra in (False, True):
        game = Game(silent_war)
        game.call("start_game")
        sub = game.sub_at_sea("Tautog", "Marshalls")
        wp1, c1 = game.v("war_period", "WP1"), game.v("contact", "C1")
        counts = game.call(
            "engagement", war_period=wp1, contact=c1, level=game.v("activity_level", "Low")
        )
        if ultra:
            game.set(ultra_areas=(sub.attrs["area"],))
        game.call("draw_contacts", sub=sub, counts=counts)
        results[ultra] = (drawn(game), {str(u.attrs["column"]) for u in game.state["display"]})
    assert counts is not None
    fields = dict(counts.fields)
    a, b = fields["A"], fields["B"]
    assert str(fields["C"]) == str(fields["D"]) == "•"
    assert results[False][0] == a + b
    assert results[True][0] == a + b + 2  # one more from A and from B, none from C or D
    assert results[True][1] <= {"A", "B"}


def test_a_patrol_scenario_plays_prep_for_operations_and_the_sub_segments_4_0(
    silent_war: Checked,
) -> None:
    # [4.0] "For patrol scenarios, ignore the Strategic and Triple-R segments except for the
    # Prep for Operations Phase [11.0]." A phase that does nothing leaves no line; the War
    # Event Phase [5.0] and ULTRA [7.1] roll a die every turn they are played.
    from rulekit.play.runner import new_game

    def first_turn(scenario: str) -> tuple[list[str], set[str]]:
        game = new_game(silent_war, scenario, 3)
        seen: list[Any] = []
        game.play(1, explain=lambda _turn, events: seen.extend(events))
        phases = [e.procedure for e in seen if e.event == "call" and e.depth == 1]
        return phases, {e.rule for e in seen if e.event == "roll"}

    phases, rolled = first_turn("patrol")
    assert phases[0] == "prep_phase" and phases[-1] == "conclude_turn_phase"
    assert set(phases[1:-1]) <= {"patrol_movement", "search_and_combat", "transit_movement"}
    assert "5.0" not in rolled and "7.1" not in rolled
    phases, rolled = first_turn("short_campaign")  # the campaign's turn, for contrast
    assert phases[0] == "war_event_phase" and {"5.0", "7.1"} <= rolled


def test_an_aircraft_revealed_on_the_combat_display_meets_the_weather_14_13_7_21(
    silent_war: Checked,
) -> None:
    # [14.13] "If an aircraft is revealed, check Weather Effects [7.21]." Tropical Storm: "Any
    # Japanese aircraft revealed during combat is returned to the appropriate cup on a die roll
    # of 0-7. No other unit is revealed in its place." Typhoon: "... is returned to the
    # appropriate cup."
    def revealed(level: str | None, dice: list[int]) -> tuple[bool, Game]:
        game = Game(silent_war, dice)
        sub = game.sub_at_sea("Spearfish", "East China Sea")
        plane = game.call(
            "unit", name="Aircraft", type="Aircraft", aircraft=True, asw=2, revealed=False
        )
        plane.attrs["column"] = game.v("column", "B")
        if level is not None:
            marker = game.interp.call(
                "storm", {"area": sub.attrs["area"], "level": game.v("storm_level", level)}
            )
            game.set(storms=[marker])
        game.set(display=(plane,))
        game.call("reveal", sub=sub, u=plane)
        return plane in game.state["display"], game

    stays, game = revealed(None, [])
    assert stays and game.events("roll") == []  # clear weather: no roll
    stays, game = revealed("Tropical Storm", [7])
    assert not stays and game.dice_left() == 0  # 0-7: back to the cup
    stays, game = revealed("Tropical Storm", [8])
    assert stays and game.dice_left() == 0
    stays, game = revealed("Typhoon-1", [])
    assert not stays and game.events("roll") == []
