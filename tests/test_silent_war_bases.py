"""Silent War 2.1 Bases (issue 11 §1): the RTB destination [15.23], Forward Bases and their
Submarine Tenders [21.1]-[21.24].

Every situation is written from the rules text (../shared/seeds/000_0b28bf2899953500.txt).
The map's links, the tender counters and the Damage Table are not printed in the rules
(provisional in the data): the tests assert the rules' mechanism (which Base, which box, how
many boats), reading any unprinted number from the rulebook rather than restating it.
"""

from __future__ import annotations

from typing import Any

from test_silent_war_rules import Game

from rulekit.book.checker import Checked


def forward_base(game: Game, zone: str, tender: str = "Holland") -> Any:
    """[21.21] a tender placed in an SMZ makes it a Forward Base."""
    smz = game.v("smz", zone)
    game.set(forward_bases=(smz,))
    game.state["tender_posts"] = (game.call("tender_post", zone=smz, tender=tender),)
    return smz


def at_tender(game: Game, name: str, zone: Any, box: str = "Ready for Sea") -> Any:
    sub = game.call("start_at_base", name=name, at=game.v("base", "Pearl Harbor"))
    sub.attrs.update(base=None, tender=zone, box=game.v("base_box", box))
    return sub


def decision(game: Game, name: str) -> Any:
    (asked,) = game.events("decision", name=name)
    return asked


# ---- [15.23] the destination Base ----------------------------------------------------------


def test_the_player_names_the_destination_base_of_an_rtb_15_23(silent_war: Checked) -> None:
    # [15.23] "the submarine is moved via OpAreas to a destination Base as directly as possible
    # within its range value": not always the nearest. From the Coral Sea Brisbane is next
    # door; the player may send the boat to Pearl Harbor instead (the [10.21] note's "bounce"
    # between bases), and it keeps that destination on the following turns.
    game = Game(silent_war, [0] * 6, rtb_base="Pearl Harbor")
    pearl, brisbane = game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")
    game.set(active_bases=(pearl, brisbane))
    sub = game.sub_at_sea("Tautog", "Coral Sea", range=8)
    coral = game.v("area", "Coral Sea")
    assert game.call("base_distance", **{"from": brisbane, "to": coral}) == 1
    assert game.call("base_distance", **{"from": pearl, "to": coral}) > sub.attrs["speed"]
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    asked = decision(game, "rtb_base")
    assert asked.options[0] == "Brisbane"  # the nearest first: the default
    assert set(asked.options) == {"Brisbane", "Pearl Harbor"}
    assert sub.attrs["base"] is None and sub.attrs["bound_for"] == pearl
    away = game.call("base_distance", **{"from": pearl, "to": sub.attrs["area"]})
    assert away < game.call("base_distance", **{"from": pearl, "to": coral})  # closer to Pearl
    game.call("return_to_base", sub=sub)
    assert len(game.events("decision", name="rtb_base")) == 1  # not asked again


def test_a_base_out_of_range_is_not_offered_15_23(silent_war: Checked) -> None:
    # "within its range value": with a range of 3, Pearl Harbor is too far from the Coral Sea
    game = Game(silent_war, [0] * 2)
    pearl, brisbane = game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")
    game.set(active_bases=(pearl, brisbane))
    sub = game.sub_at_sea("Tautog", "Coral Sea", range=3)
    assert game.call("base_distance", **{"from": pearl, "to": game.v("area", "Coral Sea")}) > 3
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert decision(game, "rtb_base").options == ["Brisbane"]
    assert sub.attrs["base"] == brisbane


def test_a_withdrawn_boat_is_not_asked_it_goes_to_pearl_harbor_8_0(silent_war: Checked) -> None:
    # [8.0] "They must RTB to Pearl Harbor regardless of its distance away."
    game = Game(silent_war, [0] * 6)
    pearl, brisbane = game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")
    game.set(active_bases=(pearl, brisbane))
    sub = game.sub_at_sea("Tautog", "Coral Sea", range=8, withdrawing=True)
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert game.events("decision", name="rtb_base") == []
    assert sub.attrs["bound_for"] == pearl and sub.attrs["base"] is None


# ---- [21.1] Forward Bases -------------------------------------------------------------------


def test_a_boat_rtbs_to_is_readied_at_and_deploys_from_a_forward_base_21_1(
    silent_war: Checked,
) -> None:
    # [21.1] "The remaining bases are Forward Bases that are represented on the map by
    # Submarine Tenders in SMZs"; Midway is one. From the Hawaiian Islands (linked to the
    # Midway SMZ) the boat enters the tender with no Transit Event roll, as from an OpArea next
    # to a Base [15.23]; undamaged, it is placed in the Broom Box; [9.0] a readiness roll = or <
    # its rating puts it in the Ready for Sea Box; [15.1] it then deploys from there.
    game = Game(silent_war, [], to_tender=True, rtb_tender="Midway", go=True, target="Marshalls")
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway")
    sub = game.sub_at_sea("Tautog", "Hawaiian Islands", spotted=True)
    game.call("voluntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert sub.attrs["tender"] == midway and str(sub.attrs["box"]) == "Broom"
    assert (sub.attrs["area"], sub.attrs["base"], sub.attrs["rtb"]) == (None, None, None)
    assert sub.attrs["spotted"] is False  # "Upon entering a Base, remove any Spotted marker"
    assert game.events("roll") == []
    readiness = sub.attrs["readiness"]
    game.interp.dice.values = [readiness]  # = the rating: ready
    game.interp.dice.used = 0
    game.call("ready_phase")
    assert str(sub.attrs["box"]) == "Ready for Sea"
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Marshalls"  # Hawaiian Islands, then one OpArea on
    assert (sub.attrs["tender"], sub.attrs["box"]) == (None, None)


def test_a_forward_base_nearer_than_any_major_base_is_the_default_21_1(
    silent_war: Checked,
) -> None:
    game = Game(silent_war, [])
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway")
    sub = game.sub_at_sea("Tautog", "Hawaiian Islands")
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert decision(game, "to_tender").choice is True
    assert sub.attrs["tender"] == midway


def test_no_boat_may_rtb_to_a_tender_at_its_support_capacity_21_22(silent_war: Checked) -> None:
    # [21.22] "This is the maximum number of submarines that can be in the tender's Broom,
    # Shipyards, and Ready for Sea Boxes at any one time. If the tender is at maximum capacity,
    # no additional submarines may RTB to that tender." [21.2] "Capacity is one greater than
    # shown on the counter."
    game = Game(silent_war, [0] * 4)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway", "Holland")
    on_counter = dict(game.call("tenders", name="Holland").fields)["capacity"]
    capacity = game.call("tender_capacity", name="Holland")
    assert capacity == on_counter + 1
    boxes = ["Broom", "Pier Side", "Ready for Sea"]
    crews = ["Gudgeon", "Triton", "Pollack", "Plunger", "Gato", "Growler"][:capacity]
    for i, name in enumerate(crews):
        at_tender(game, name, midway, boxes[i % 3])
    # a boat in a Repair Box elsewhere does not count; the tender is full
    sub = game.sub_at_sea("Tautog", "Hawaiian Islands")
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert game.events("decision", name="to_tender") == []
    assert str(sub.attrs["base"]) == "Pearl Harbor"
    # one place free: the tender is offered again
    game.state["subs"][0].attrs.update(tender=None, box=None, area=game.v("area", "Marshalls"))
    other = game.sub_at_sea("Thresher", "Hawaiian Islands")
    game.call("involuntary_rtb", sub=other)
    game.call("return_to_base", sub=other)
    assert other.attrs["tender"] == midway


def test_minor_repairs_at_a_forward_base_21_23(silent_war: Checked) -> None:
    # [21.23] "For each damage marker, roll on the Submarine Damage Table. If all results are
    # "Superficial Damage", move the submarine to the Broom Box of the appropriate tender. If
    # any other result, move the damaged submarine to the "Done" section of the applicable
    # OpArea, and in subsequent turns it may only RTB to a major base."
    table = {n: str(silent_war_damage(silent_war, n)) for n in range(10)}
    superficial = [n for n, r in table.items() if r == "Superficial Damage"]
    worse = [n for n, r in table.items() if r != "Superficial Damage"]
    # two markers, both superficial: repaired at the tender
    game = Game(silent_war, [superficial[0], superficial[-1]], to_tender=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway")
    sub = game.sub_at_sea("Tautog", "Hawaiian Islands", damage=2)
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert [r.rule for r in game.events("roll")] == ["21.23", "21.23"]
    assert sub.attrs["tender"] == midway and str(sub.attrs["box"]) == "Broom"
    assert sub.attrs["damage"] == 0
    # one of two not superficial: both are rolled, the boat stays at sea, major bases only
    game = Game(silent_war, [worse[0], superficial[0]], to_tender=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    midway = forward_base(game, "Midway")
    sub = game.sub_at_sea("Tautog", "Hawaiian Islands", damage=2)
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert game.dice_left() == 0
    assert sub.attrs["tender"] is None and str(sub.attrs["area"]) == "Hawaiian Islands"
    assert str(sub.attrs["section"]) == "done" and sub.attrs["damage"] == 2
    assert sub.attrs["major_only"] is True and sub.attrs["rtb"] is not None
    # the next turn: the tender is not offered; it goes to Pearl Harbor
    game.interp.dice.values = [0, 0, 0]
    game.interp.dice.used = 0
    game.call("return_to_base", sub=sub)
    assert len(game.events("decision", name="to_tender")) == 1
    assert str(sub.attrs["base"]) == "Pearl Harbor"


def silent_war_damage(book: Checked, die: int) -> Any:
    game = Game(book, [die])
    return game.call("damage_table")


def test_a_tender_at_a_falling_base_is_removed_but_eligible_again_21_24(
    silent_war: Checked,
) -> None:
    # [21.1] "Surabaya - Active on War Event. Inactive on War Event." [21.24] "A submarine
    # tender that is at a base which falls is removed from play but remains eligible to be
    # used for a new base."
    game = Game(silent_war, [])
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    surabaya = forward_base(game, "Surabaya", "Griffin")
    game.set(tender_pool=["Holland"])
    sub = at_tender(game, "Tautog", surabaya)
    game.call("forward_base_falls", zone=surabaya)
    assert game.state["forward_bases"] == () and game.state["tender_posts"] == ()
    assert list(game.state["tender_pool"]) == ["Holland", "Griffin"]
    # the boat that was at the tender is at sea and must RTB (our reading: the text is silent)
    assert sub.attrs["tender"] is None and sub.attrs["area"] is not None
    assert sub.attrs["rtb"] is not None


def test_an_active_forward_base_is_no_special_mission_target_21_11(silent_war: Checked) -> None:
    # [21.11] "Once active, a Forward Base SMZ may no longer be the target of a Special
    # Mission unless inactivated by a War Event." War Period 3, roll 2: the Saipan Special
    # Mission (provisional War Events Table).
    game = Game(silent_war, [0, 2])
    game.set(war_period="WP3")
    event = game.call("war_events", war_period=game.v("war_period", "WP3"), roll=2)
    fields = dict(event.fields)
    assert str(fields["kind"]) == "special_mission"
    saipan = forward_base(game, str(fields["zone"]))
    game.call("war_event_phase")
    assert saipan not in game.state["active_smzs"] and game.state["missions"] == ()


def test_the_transit_event_check_into_a_forward_base_adds_nothing_21_11(
    silent_war: Checked,
) -> None:
    # [21.11] "Submarines moving to a Forward Base do not add +2 to their Transit Event check
    # as per [20.3]": from the Marshalls to the Midway tender through the Hawaiian Islands.
    game = Game(silent_war, [9, 0, 0], to_tender=True)
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    forward_base(game, "Midway")
    sub = game.sub_at_sea("Tautog", "Marshalls")
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    checks = game.events("roll", rule="19.1")
    assert checks, "a Transit Event check is made on the way"
    assert [t for t in checks[0].modifiers if t.rule == "20.3"] == []


def test_a_withdrawn_boat_at_a_forward_base_sails_for_pearl_harbor_8_0(
    silent_war: Checked,
) -> None:
    # [15.22] "A submarine forced to RTB because it is being withdrawn that is at another base
    # ... may perform its Transit move this turn"; [8.0] "They must RTB to Pearl Harbor": a
    # Forward Base is another base [21.1].
    game = Game(silent_war, [0] * 6)
    pearl = game.v("base", "Pearl Harbor")
    game.set(active_bases=(pearl,))
    midway = forward_base(game, "Midway")
    sub = at_tender(game, "Tautog", midway, "Broom")
    game.call("withdraw_for_overhaul", name="Tautog")
    assert sub.attrs["tender"] is None and sub.attrs["box"] is None
    assert str(sub.attrs["area"]) in {str(a) for a in game.call("smz_areas", smz=midway)}
    assert str(sub.attrs["rtb"]) == "involuntary"
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["box"]) == "U.S. West Coast"
