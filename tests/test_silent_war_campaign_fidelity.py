"""Silent War 2.1 campaign-side rules played as written (issue 11): War Progress, victory,
reinforcements and withdrawals, the War Mix, transit, range, and the full campaign.

Every situation is written from the rules text (../shared/seeds/000_0b28bf2899953500.txt) and
the numbers asserted are the text's; where a chart is not printed the test asserts the rule's
mechanism (which box, which month, which piece), never a provisional value.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_silent_war_rules import Game

from rulekit.book.checker import Checked
from rulekit.play.runner import new_game


def sub_named(game: Game, name: str) -> Any:
    return next(s for s in game.state["subs"] if s.attrs["name"] == name)


def waiting(game: Game) -> list[tuple[str, str]]:
    """The Super Skippers waiting for a boat next in line [25.3]: (boat, skipper)."""
    return [(p.get("boat"), p.get("skipper")) for p in game.state["skippers_waiting"]]


def const_texts(book: Checked, name: str) -> list[str]:
    """A list constant's items as written in the rulebook."""
    return [item.value for item in book.book.consts[name].value.items]


def rolls_of(game: Game, rule: str) -> list[Any]:
    return [e for e in game.events("roll") if e.rule == rule]


def notes(game: Game) -> list[str]:
    return [e.text for e in game.events("note")]


# ---- [17.0] War Progress, [16.1] victory first ------------------------------------------------


def end_turn(game: Game) -> None:
    """The End Turn Segment [4.0 IV]: Conclude Turn [16.0], then War Progress [17.0]."""
    game.call("conclude_turn_phase")
    game.call("war_progress_phase")


def test_war_progress_is_rolled_after_the_fourth_week_17_0(silent_war: Checked) -> None:
    # "At the end of the fourth week of months marked with numbers in their boxes on the War
    # Period Transition Table, the player must determine if the War Period advances."
    # June 1944 is printed with a 9 for War Period 4 [28.5].
    game = Game(silent_war, [9])
    game.set(year=1944, month="Jun", week=3, war_period="WP3", ships_sunk=700, tonnage_sunk=600)
    end_turn(game)  # the third week ends: no roll
    assert (str(game.state["month"]), game.state["week"]) == ("Jun", 4)
    assert rolls_of(game, "17.0 B") == []
    end_turn(game)  # the fourth week of June ends: one roll against June's 9
    (roll,) = rolls_of(game, "17.0 B")
    assert (str(game.state["month"]), game.state["week"]) == ("Jul", 1)
    assert roll.natural == 9
    assert str(game.state["war_period"]) == ("WP4" if roll.total >= 9 else "WP3")


def test_war_progress_uses_the_month_that_ended_17_0(silent_war: Checked) -> None:
    # January 1945 is the last War Period 4 box (printed "Jun 44 thru Jan 45" [28.5]): the end
    # of its fourth week is the last attempt, and failing it the War Period advances [17.1].
    game = Game(silent_war, [0])
    game.set(year=1945, month="Jan", week=4, war_period="WP3", ships_sunk=400, tonnage_sunk=0)
    wp4 = game.v("war_period", "WP4")
    end_turn(game)
    assert (str(game.state["month"]), game.state["year"]) == ("Feb", 1945)
    assert game.call("transition_number", to=wp4) is None  # February has no box ...
    assert str(game.state["war_period"]) == "WP4"  # ... yet January's attempt was made
    assert "all transition numbers have been attempted: automatic advance" in notes(game)


def test_victory_is_checked_first_in_conclude_turn_16_1(silent_war: Checked) -> None:
    # [16.1] "Check victory conditions for victory or defeat. If either is achieved, play ends
    # immediately." Nothing after it: no Spotted roll, no date advance, no War Progress roll.
    game = Game(silent_war, [0, 0])
    game.set(year=1942, month="Nov", week=4, war_period="WP1", ships_sunk=100, tonnage_sunk=1000)
    game.set(victory_conditions="short_campaign")
    game.sub_at_sea("Spearfish", "East China Sea", spotted=True)
    end_turn(game)
    assert game.state["game_result"] == "victory: the tonnage goal is met"
    assert (str(game.state["month"]), game.state["week"]) == ("Nov", 4)
    assert game.events("roll") == []
    assert str(game.state["war_period"]) == "WP1"
    assert game.call("victory_reached") == "victory: the tonnage goal is met"


# ---- [28.5] Early Advancement into War Period 4 ------------------------------------------------


def test_early_advancement_never_delays_war_period_4_28_5(silent_war: Checked) -> None:
    # [28.5] is "an early transition to War Period 4": reached in August 1944, whose printed
    # box is 7 (June 9, July 8 ...), the trigger must not make August a 9.
    game = Game(silent_war, [0])
    game.set(year=1944, month="Aug", week=2, war_period="WP3", ships_sunk=860, tonnage_sunk=3800)
    game.call("war_progress_phase")
    assert game.state["early_wp4_from"] is not None
    wp4 = game.v("war_period", "WP4")
    numbers = {}
    for month in ("Aug", "Sep", "Oct"):
        game.set(month=month)
        numbers[month] = game.call("transition_number", to=wp4)
    assert numbers == {"Aug": 7, "Sep": 6, "Oct": 5}


def test_early_advancement_sequence_ends_with_automatic_advance_28_5(silent_war: Checked) -> None:
    # The [28.5] example: March 1944 is 9, April 8, May 7 ...: the 2 (as printed for the last
    # box, January 1945) falls in October 1944, after which the War Period advances [17.1].
    game = Game(silent_war, [0])
    game.set(year=1944, month="Mar", week=2, war_period="WP3", ships_sunk=860, tonnage_sunk=3900)
    game.call("war_progress_phase")
    wp4 = game.v("war_period", "WP4")
    game.set(month="Oct")
    assert game.call("transition_number", to=wp4) == 2
    assert game.call("last_transition_month", to=wp4) is True
    game.set(month="Sep")
    assert game.call("last_transition_month", to=wp4) is False


# ---- the War Mix [3.1]-[3.15], [2.3 B], [14.8] ------------------------------------------------


def pieces(game: Game) -> list[Any]:
    return [u for cup in ("cup_a", "cup_b", "cup_c", "cup_d") for u in game.state[cup]]


def piece_names(game: Game) -> list[str]:
    return [u.attrs["name"] for u in pieces(game)]


def test_two_hospital_ships_asahi_maru_and_kiku_maru_28_3(silent_war: Checked) -> None:
    # "There are two Japanese Hospital Ships in Silent War 2.0, the Asahi Maru and Kiku Maru"
    game = Game(silent_war)
    game.set_up()
    hospital = sorted(u.attrs["name"] for u in pieces(game) if u.attrs["hospital"])
    assert hospital == ["Asahi Maru", "Kiku Maru"]


def test_diligent_escort_backs_and_tf_only_2_3_b3(silent_war: Checked) -> None:
    # "six Diligent Escort pieces in the game, three with the Red Ball on the back and three
    # with the Rising Sun on the back"
    backs = [str(b) for b in const_texts(silent_war, "diligent_backs")]
    assert sorted(backs) == ["Red Ball"] * 3 + ["Rising Sun"] * 3

    # [3.11] "If a ship category ... has different types of pieces, choose and distribute them
    # randomly into the cups": the War Mix of War Period 1 puts a Diligent Escort in cups B, C
    # and D (provisional counts), each drawn from the six pieces. Forced draws: the pieces are
    # numbered in the order above (three Rising Sun, then three Red Ball), and one is drawn
    # for B, then C, then D. The draws before them (the named pieces of the categories sorted
    # first, [3.11]) are as many whatever they draw: each is forced to its first item.
    seeded = Game(silent_war)
    seeded.call("start_game")
    draws = [e for e in seeded.events("draw") if e.of > 1]
    before = next(i for i, e in enumerate(draws) if e.pool == "backs")

    def diligent_backs(forced: list[int]) -> list[str]:
        game = Game(silent_war, [1] * before + forced)
        game.call("start_game")
        assert game.dice_left() == 0  # setting up throws nothing but these draws
        found = [u for u in pieces(game) if u.attrs["diligent"]]
        return [str(u.attrs["flag"]) for u in sorted(found, key=lambda u: str(u.attrs["cup"]))]

    assert diligent_backs([4, 4, 4]) == ["Red Ball"] * 3  # the 4th of 6, of 5, of 4: Red Balls
    assert diligent_backs([1, 1, 1]) == ["Rising Sun"] * 3
    # 3rd of 6 (Rising Sun), then of [RS, RS, RB, RB, RB] the 5th (Red Ball), then of
    # [RS, RS, RB, RB] the 1st (Rising Sun)
    assert diligent_backs([3, 5, 1]) == ["Rising Sun", "Red Ball", "Rising Sun"]
    game = Game(silent_war, [4, 1, 1])
    game.set_up()
    # [13.3] TF ONLY "only place vessels with the Rising Sun flag on their backs": a Red Ball
    # Diligent Escort is never drawn then.
    red = next(
        u for u in pieces(game) if u.attrs["diligent"] and str(u.attrs["flag"]) == "Red Ball"
    )
    column = red.attrs["cup"]
    game.set(display=[])
    for _ in range(30):
        game.call("draw_column", c=column, number=1, rising_sun_only=True)
    assert red not in game.state["display"]


def test_no_tdc_solution_chits_go_back_to_their_cups_14_8(silent_war: Checked) -> None:
    # [3.11] a No TDC Solution chit "counts towards the total ships pulled, but not placed on
    # the combat display"; [14.8] "Return the Japanese units ... to the appropriate cups."
    game = Game(silent_war)
    game.set_up()
    before = sum(1 for u in pieces(game) if u.attrs["no_tdc"])
    chit = next(u for u in pieces(game) if u.attrs["no_tdc"])
    game.call("remove_from_cup", piece=chit)
    game.set(held=[chit])
    game.call("after_clean_up", before=[])
    assert sum(1 for u in pieces(game) if u.attrs["no_tdc"]) == before
    assert game.state["held"] == ()


def test_a_war_period_change_keeps_the_dated_ships_and_the_removed_ones_out_3_15(
    silent_war: Checked,
) -> None:
    # [3.13] Yamato enters 5/42, "remove BB36t in 3/43"; [14.8] a sunk hospital ship is
    # "removed from the game"; [3.15] the War Mix is re-sorted when the War Period advances.
    game = Game(silent_war)
    game.set(year=1942, month="May", week=1)
    game.set_up()
    game.call("named_ship_entries")
    assert "Yamato" in piece_names(game)
    asahi = next(u for u in pieces(game) if u.attrs["name"] == "Asahi Maru")
    named_before = [u for u in pieces(game) if u.attrs["italic"]]
    game.call("remove_from_cup", piece=asahi)  # sunk in a combat: Clean-Up keeps it out
    game.call("after_clean_up", before=named_before)
    game.set(year=1943, month="Mar", week=1)
    game.call("named_ship_entries")
    assert "BB36t" not in piece_names(game)
    game.call("advance_war_period", to=game.v("war_period", "WP2"))
    names = piece_names(game)
    assert "Yamato" in names
    assert "BB36t" not in names and "Asahi Maru" not in names
    assert "Kiku Maru" in names
    # [2.3 B2] "If the sunk ship is a hospital ship ..., replace it with a random
    # appropriately-sized Merchant": still in the mix after the re-sort
    assert game.state["replacements"] and game.state["replacements"][0] in pieces(game)


def test_musashi_is_the_stand_in_for_a_drawn_yamato_3_13(silent_war: Checked) -> None:
    # "Only Yamato appears on the "War Mix" table. If Musashi is in play (2/43 or later) and
    # the player encounters Yamato ..., the player randomly chooses which of the two is
    # encountered. If one is sunk, then it is automatically the other (until it's gone)."
    game = Game(silent_war, [1, 0])
    game.set(year=1942, month="May", week=1)
    game.set_up()
    game.call("named_ship_entries")
    game.set(year=1943, month="Feb", week=1)
    game.call("named_ship_entries")
    battleships = [u for u in pieces(game) if str(u.attrs["category"]) == "BB"]
    assert [u.attrs["name"] for u in battleships] == ["BB36t", "Yamato/Musashi"]
    pair = battleships[1]
    game.call("remove_from_cup", piece=pair)  # sunk: the die picks which of the two
    game.call("after_clean_up", before=[pair])
    assert [u.attrs["name"] for u in pieces(game) if u.attrs["named"] == 1] == ["Musashi"]
    musashi = next(u for u in pieces(game) if u.attrs["named"] == 1)
    game.call("remove_from_cup", piece=musashi)
    game.call("after_clean_up", before=[musashi])
    assert [u for u in pieces(game) if u.attrs["named"] == 1] == []
    assert sorted(game.state["removed_named"]) == [1, 2]


def test_italic_units_sunk_at_the_start_stay_out_3_14(silent_war: Checked) -> None:
    # "If any of the italicized Japanese units are noted as sunk at the beginning of a
    # scenario, their pieces are not placed in the "War Mix"."
    game = Game(silent_war)
    game.set(year=1944, month="Apr", week=1, war_period="WP3")
    game.call("sunk_at_start", name="Kiku Maru")
    game.call("sunk_at_start", name="Taiho")
    game.set_up()
    names = piece_names(game)
    assert "Kiku Maru" not in names and "Taiho" not in names
    assert "Asahi Maru" in names and "Musashi" not in names and "Yamato/Musashi" in names
    assert names.count("Matsu") == 5 and "BB36t" not in names


def test_the_named_japanese_units_are_pieces_of_the_war_mix_2_3_b2(silent_war: Checked) -> None:
    # [2.3 B2] "Some specific named Japanese ships are provided. These are carriers Akagi,
    # Kaga, Hiryu, Shokaku, ...; repair ship Asahi; armored cruiser Izumo; ...; and naval
    # auxiliaries Akashi, Erimo, and Iro. If sunk, these ships are permanently removed from
    # play. If the sunk ship is a hospital ship or naval auxiliary, replace it with a random
    # appropriately-sized Merchant or Naval Auxiliary not currently in the "War Mix"."
    printed = {"Akagi", "Kaga", "Hiryu", "Shokaku", "Asahi", "Izumo", "Akashi", "Erimo", "Iro"}
    assert set(const_texts(silent_war, "named_units")) == printed
    assert set(const_texts(silent_war, "naval_auxiliaries")) == {"Akashi", "Erimo", "Iro"}
    game = Game(silent_war)
    game.set_up()
    named = {u.attrs["name"]: u for u in pieces(game) if u.attrs["name"] in printed}
    assert named, "the named units are in the War Mix"
    assert all(u.attrs["italic"] for u in named.values())
    # Izumo "armored cruiser" and Asahi "repair ship": AC and AR, "considered merchants"
    assert {str(named[n].attrs["type"]) for n in ("Asahi", "Izumo") if n in named} <= {"AR", "AC"}
    # a sunk carrier is removed from play for good; its place on the War Mix Table is open to
    # another carrier piece at the next sort [3.11] (issue 30)
    carrier = next(u for n, u in named.items() if str(u.attrs["category"]) == "CV")
    game.call("remove_from_cup", piece=carrier)
    game.call("after_clean_up", before=[carrier])
    assert carrier.attrs["name"] in game.state["removed_pieces"]
    # a sunk naval auxiliary is replaced by a Merchant
    auxiliary = next(u for n, u in named.items() if n in ("Akashi", "Erimo", "Iro"))
    total = len(pieces(game))
    game.call("remove_from_cup", piece=auxiliary)
    game.call("after_clean_up", before=[auxiliary])
    assert len(pieces(game)) == total
    (merchant,) = game.state["replacements"]
    assert str(merchant.attrs["category"]).startswith("M ")
    game.call("advance_war_period", to=game.v("war_period", "WP2"))
    names = piece_names(game)
    assert carrier.attrs["name"] not in names and auxiliary.attrs["name"] not in names
    assert merchant in pieces(game)
    wp2 = game.call(
        "war_mix", war_period=game.v("war_period", "WP2"), category=game.v("category", "CV")
    )
    on_table = sum(wp2.get(k) for k in "ABCD")
    carriers = [u for u in pieces(game) if str(u.attrs["category"]) == "CV"]
    assert len(carriers) == on_table
    assert carrier.attrs["name"] not in {u.attrs["name"] for u in carriers}


# ---- [8.0] Reinforcements, Withdrawals and Returns ------------------------------------------


def test_january_1944_receives_the_seven_boats_of_25_3(silent_war: Checked) -> None:
    # "Redfin, Angler, Flasher, Robalo, Tang, Jack, or Tambor which will be received in
    # January of 1944"
    table = silent_war.tables["reinforcement_list"]
    cells = {tuple(key.printed for key in k): c for k, c in table.iter_cells()}
    jan = [e["sub"] for e in cells[("1944", "Jan")].printed]
    assert jan == ["Redfin", "Angler", "Flasher", "Robalo", "Tang", "Jack", "Tambor"]


def test_no_boat_is_received_twice_8_0(silent_war: Checked) -> None:
    table = silent_war.tables["reinforcement_list"]
    received = [
        e["sub"]
        for _, cell in table.iter_cells()
        for e in cell.printed
        if e["action"] == "Reinforcement"
    ]
    assert len(received) == len(set(received)), received


def test_s42_is_withdrawn_from_active_service_in_december_1943_25_3(silent_war: Checked) -> None:
    # "In December 1943, S-42 with +2 Whitaker is withdrawn from active service. The player
    # rolls a die and gets an 8."
    game = Game(silent_war, [8])
    game.set(year=1943, month="Dec", week=1)
    s42 = game.call("start_at_base", name="S-42", at=game.v("base", "Brisbane"))
    s42.attrs.update(skipper=2, skipper_name="Whitaker")
    game.call("reinforcement_phase")
    assert str(s42.attrs["status"]) == "withdrawn"
    assert s42.attrs["box"] is None  # not in overhaul on the West Coast
    # "... to Redfin, Angler, Flasher, Robalo, Tang, Jack, or Tambor which will be received
    # in January of 1944": by default the first of them
    assert waiting(game) == [("Redfin", "Whitaker")]


def test_a_withdrawn_boat_at_another_base_goes_to_pearl_and_the_west_coast_8_0(
    silent_war: Checked,
) -> None:
    # "They must RTB to Pearl Harbor regardless of its distance away. Once at Pearl Harbor
    # ... they are moved immediately to the "U.S. West Coast" Box ... any damaged/spotted
    # markers are removed." "Returns: ... placed in the Broom Box of Pearl Harbor"
    game = Game(silent_war)
    game.set(active_bases=[game.v("base", "Pearl Harbor"), game.v("base", "Brisbane")])
    boat = game.call("start_at_base", name="Gudgeon", at=game.v("base", "Brisbane"))
    game.call("withdraw_for_overhaul", name="Gudgeon")
    assert boat.attrs["base"] is None and str(boat.attrs["rtb"]) == "involuntary"
    for _ in range(12):
        if boat.attrs["box"] is not None or str(boat.attrs["status"]) != "active":
            break
        game.call("prep_phase")  # each turn: Done to Operating [11.0], then transit [15.0]
        game.call("transit_movement", sub=boat)
    assert str(boat.attrs["status"]) == "active"  # the seeded transit events spare it
    assert str(boat.attrs["base"]) == "Pearl Harbor"
    assert str(boat.attrs["box"]) == "U.S. West Coast"
    assert boat.attrs["damage"] == 0 and boat.attrs["spotted"] is False
    game.call("return_from_overhaul", name="Gudgeon")
    assert str(boat.attrs["box"]) == "Broom"


def test_a_withdrawn_boat_on_patrol_may_search_first_8_0(silent_war: Checked) -> None:
    # "Note: a submarine being withdrawn that is at sea on its Patrol side may conduct Search
    # & Contact and Combat prior to being marked for involuntary RTB."
    game = Game(silent_war)
    boat = game.sub_at_sea("Gudgeon", "Marshalls")
    game.call("withdraw_for_overhaul", name="Gudgeon")
    assert boat.attrs["rtb"] is None and str(boat.attrs["side"]) == "patrol"
    assert boat.attrs["withdrawing"] is True
    game.call("transit_movement", sub=boat)  # marked now; it moves next turn [15.22]
    assert str(boat.attrs["rtb"]) == "involuntary"
    assert str(boat.attrs["area"]) == "Marshalls"


def test_early_gatos_ten_and_return_as_normal_gatos_2_3_a(silent_war: Checked) -> None:
    # "Ten Gato submarine playing pieces are marked EARLY GATO"; "after entering overhaul,
    # return as normal Gatos"
    early = const_texts(silent_war, "early_gato_boats")
    assert len(early) == 10 == len(set(early))
    game = Game(silent_war)
    boat = game.call("start_at_base", name="Drum", at=game.v("base", "Pearl Harbor"))
    normal = game.call("start_at_base", name="Harder", at=game.v("base", "Pearl Harbor"))
    assert boat.attrs["early_gato"] is True
    assert boat.attrs["tactical"] < normal.attrs["tactical"]
    game.call("withdraw_for_overhaul", name="Drum")
    game.call("return_from_overhaul", name="Drum")
    assert boat.attrs["early_gato"] is False
    assert boat.attrs["tactical"] == normal.attrs["tactical"]


# ---- the full campaign, December 1941 - August 1945 --------------------------------------------


@pytest.mark.parametrize("seed", [1])  # more seeds: bench/campaigns.py --scenario full_campaign
def test_the_full_campaign_plays_to_the_end(silent_war: Checked, seed: int) -> None:
    game = new_game(silent_war, "full_campaign", seed)
    game.interp.mute(True)  # untraced, as simulate plays it: a third of the time
    assert (game.interp.state.values["year"], str(game.interp.state.values["month"])) == (
        1941,
        "Dec",
    )
    result = game.play()
    assert game.ended is not None
    state = game.interp.state.values
    active = [s for s in state["subs"] if str(s.attrs["status"]) == "active"]
    if game.turn < 179:  # ended by its victory check [16.1]: every submarine is gone
        assert game.ended == "defeat: no submarines left" and active == []
    else:  # the fourth week of August 1945 is the last turn
        assert (state["year"], str(state["month"]), state["week"]) == (1945, "Sep", 1)
    periods = [r.values["war_period"] for r in result.reports]
    assert periods == sorted(periods)  # War Periods only advance [17.0]
    # [17.1] January 1945 is the last printed War Period 4 box: after it, War Period 4
    dates = [(r.values["year"], r.values["month"], r.values["war_period"]) for r in result.reports]
    assert all(wp == "WP4" for year, month, wp in dates if year == 1945 and month != "Jan")
    # [3.13] the ships with Entry Dates entered by their dates
    if state["year"] >= 1945:
        assert {1, 2, 3, 4, 5, 6} <= set(state["entered_named"])


# ---- [19.1] / [22.1] the OpArea left, [7.21] storms transited from ---------------------------


def test_leaving_the_sea_of_japan_adds_two_19_1(silent_war: Checked) -> None:
    # "+2 drm if ... entering/leaving the Sea of Japan": Sea of Japan -> Empire Pacific
    game = Game(silent_war, [0])
    soj, ep = game.v("area", "Sea of Japan"), game.v("area", "Empire Pacific")
    sub = game.sub_at_sea("Spearfish", "Empire Pacific")
    game.call(
        "transit_event_check",
        sub=sub,
        passed=[ep],
        patrol_move=True,
        cautious=False,
        into_smz=False,
        left=soj,
    )
    (roll,) = rolls_of(game, "19.1")
    assert (2, "19.1") in [(t.value, t.rule) for t in roll.modifiers]


def test_a_patrol_move_out_of_the_sea_of_japan_counts_it_19_1(silent_war: Checked) -> None:
    game = Game(silent_war, [0, 0, 0], move_to=["Empire Pacific"])
    sub = game.sub_at_sea("Spearfish", "Sea of Japan", side=game.v("side", "patrol"))
    sub.attrs["section"] = game.v("section", "operating")
    game.call("patrol_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Empire Pacific"
    checks = rolls_of(game, "19.1")
    assert checks and (2, "19.1") in [(t.value, t.rule) for t in checks[0].modifiers]


def test_a_transit_boat_already_at_its_destination_flips_to_patrol_in_done_15_1(
    silent_war: Checked,
) -> None:
    # [15.1] "place it in the "Done" section of the ending OpArea. The submarine ... flips to
    # its Patrol side if it intends to patrol next turn." A boat found on its Transit side in
    # its destination (bench/campaigns.py: full campaign seed 14, turn 98) moves no farther:
    # it flips in the Done section, not left in Operating at the end of the turn.
    game = Game(silent_war, [])
    sub = game.sub_at_sea("Gudgeon", "Marshalls", side=game.v("side", "transit"))
    sub.attrs["destination"] = game.v("area", "Marshalls")
    sub.attrs["section"] = game.v("section", "operating")
    game.call("continue_transit", sub=sub)
    assert str(sub.attrs["side"]) == "patrol" and str(sub.attrs["area"]) == "Marshalls"
    assert str(sub.attrs["section"]) == "done"


def test_a_wolfpack_already_at_its_destination_flips_in_done_together_24_2(
    silent_war: Checked,
) -> None:
    # [24.2] the members of a Wolfpack move together; [15.1] a boat on its Transit side in its
    # destination flips to Patrol in the "Done" section. The leader did; its mate flipped
    # with it but was left in Operating at the end of the turn (bench/campaigns.py: full
    # campaign seed 119, turn 98, Swordfish).
    game = Game(silent_war, [])
    transit = game.v("side", "transit")
    pack = [game.sub_at_sea(name, "Marshalls", side=transit) for name in ("Gudgeon", "Grampus")]
    for sub in pack:
        sub.attrs["destination"] = game.v("area", "Marshalls")
        sub.attrs["section"] = game.v("section", "operating")
        sub.attrs["wolfpack"] = 1
    game.call("unit_transit_movement", sub=pack[1])
    for sub in pack:
        assert str(sub.attrs["side"]) == "patrol" and str(sub.attrs["area"]) == "Marshalls"
        assert str(sub.attrs["section"]) == "done", sub.attrs["name"]


def test_a_combat_phase_with_nothing_placed_leaves_no_submarine_on_the_display_14_8(
    silent_war: Checked,
) -> None:
    # Both chits drawn were No TDC Solution chits, counted and not placed (bench/campaigns.py:
    # full campaign, random policy, seed 8, turn 169): there is no combat, and the submarine
    # must not stay on the Combat Display [14.8] into the next turn.
    game = Game(silent_war, [])
    sub = game.sub_at_sea("Capitaine", "Gilberts")
    assert game.state["display"] == ()
    game.call("combat_phase", sub=sub)
    assert game.state["combatants"] == ()


def test_storm_damage_counts_the_storm_transited_from_7_21(silent_war: Checked) -> None:
    # "if it is in or has transited through or from a Tropical Storm OpArea ..., roll a d10.
    # On a result of 0, the submarine receives a Damaged marker."
    game = Game(silent_war, [0, 0])
    ecs = game.v("area", "East China Sea")
    sub = game.sub_at_sea("Spearfish", "East China Sea", side=game.v("side", "transit"))
    sub.attrs["destination"] = game.v("area", "Empire Pacific")
    marker = game.interp.call(
        "storm", {"area": ecs, "level": game.v("storm_level", "Tropical Storm")}
    )
    game.set(storms=[marker])
    game.call("continue_transit", sub=sub)
    assert str(sub.attrs["area"]) == "Empire Pacific"
    assert [r.natural for r in rolls_of(game, "7.21")] == [0]
    assert sub.attrs["damage"] == 1


def test_a_submarine_out_of_range_when_a_base_falls_is_damaged_and_rtbs_15_26(
    silent_war: Checked,
) -> None:
    # [15.26] "some events may precipitate a submarine being out of range of a base (such as
    # fall of a base). A submarine that is discovered to be out of range of a base is damaged
    # and must RTB to the nearest base at a speed one less than its printed speed"
    game = Game(silent_war, [])
    game.set(active_bases=(game.v("base", "Pearl Harbor"), game.v("base", "Manila")))
    far = game.sub_at_sea("Sargo", "S. China Sea 1", range=3)
    near = game.sub_at_sea("Tautog", "Hawaiian Islands", range=3)
    scs = game.v("area", "S. China Sea 1")
    assert game.call("in_range", sub=far, a=scs)  # Manila is near
    game.call("base_falls", at=game.v("base", "Manila"))
    assert not game.call("in_range", sub=far, a=scs)  # only Pearl Harbor is left
    assert far.attrs["damage"] == 1 and far.attrs["beyond_range"] is True
    assert str(far.attrs["rtb"]) == "involuntary"
    assert near.attrs["damage"] == 0 and near.attrs["rtb"] is None


def test_cautious_transit_when_deploying_15_25(silent_war: Checked) -> None:
    # [15.25] "A submarine performing Transit movement may choose to move a single OpArea
    # instead of at a higher speed ... If a submarine chooses to move one OpArea, subtract
    # one from the Transit Event check [19.1]": deployment [15.1] is Transit movement too.
    game = Game(silent_war, [5], go=True, target="Empire Pacific", cautious=True)
    pearl = game.v("base", "Pearl Harbor")
    sub = game.call("start_at_base", name="Tautog", at=pearl, box="Ready for Sea")
    assert game.call("base_distance", **{"from": pearl, "to": game.v("area", "Empire Pacific")}) > 1
    game.call("deploy", sub=sub)
    assert str(sub.attrs["area"]) == "Hawaiian Islands"  # one OpArea, toward Empire Pacific
    (check,) = game.events("roll", rule="19.1")
    assert [t.label for t in check.modifiers if t.rule == "15.25"] == ["Cautious Transit"]
    assert check.total == 5 - 1 - 1  # Transit side up -1 [19.1], Cautious -1


def test_cautious_transit_when_returning_to_base_15_25(silent_war: Checked) -> None:
    # Empire Pacific is 3 OpAreas from Pearl Harbor (North Pacific, Hawaiian Islands, the
    # Base): at speed 3 the boat would be home; moving cautiously it goes one OpArea, and the
    # move is made as a cautious one (-1 on the check where one is made)
    for cautious, home in ((False, True), (True, False)):
        game = Game(silent_war, [], cautious=cautious)
        game.set(active_bases=(game.v("base", "Pearl Harbor"),))
        sub = game.sub_at_sea("Tautog", "Empire Pacific", speed=3)
        game.call("involuntary_rtb", sub=sub)
        game.call("return_to_base", sub=sub)
        assert (sub.attrs["base"] is not None) is home
        if cautious:
            assert str(sub.attrs["area"]) == "North Pacific"
            (move,) = [e for e in game.events("call") if e.procedure == "arrive"]
            assert move.args["cautious"] is True


def _mission_game(silent_war: Checked, dice: list[int], **answers: Any) -> Game:
    game = Game(silent_war, dice, **answers)
    guadalcanal = game.v("smz", "Guadalcanal")
    game.set(active_smzs=(guadalcanal,))
    game.state["missions"] = (game.call("mission", zone=guadalcanal, count=1),)
    return game


def test_a_special_mission_takes_a_patrol_side_boat_that_can_enter_5_2(
    silent_war: Checked,
) -> None:
    # [5.2] "Some War Events direct the player to deploy a certain number of submarines to a
    # Special Mission Zone ... the player must move as many submarines as possible up to the
    # number indicated": a boat that can enter while the zone still needs one has no "no".
    game = _mission_game(silent_war, [0, 0], move_to="Solomons")
    operating = game.v("section", "operating")
    sub = game.sub_at_sea("Tautog", "Solomons", section=operating)
    game.call("patrol_movement", sub=sub)
    (asked,) = game.events("decision", name="zone")
    assert asked.options == ["Guadalcanal"]
    assert str(sub.attrs["smz"]) == "Guadalcanal"
    # the mission filled, the next boat may stay out
    other = game.sub_at_sea("Thresher", "Solomons", section=operating)
    game.call("patrol_movement", sub=other)
    assert game.events("decision", name="zone")[-1].options == [None, "Guadalcanal"]


def test_a_special_mission_calls_a_transit_side_boat_next_to_the_zone_5_2(
    silent_war: Checked,
) -> None:
    # "non-RTB submarines that are Transit side up in or adjacent to an OpArea with the SMZ
    # must be moved into the SMZ ... The subs first move into the OpArea using Transit
    # Movement (if necessary), then flip to Patrol side before moving into the SMZ."
    game = _mission_game(silent_war, [0, 0, 0])
    sub = game.sub_at_sea("Tautog", "Coral Sea")  # Coral Sea - Solomons ([12.1] example)
    sub.attrs["side"] = game.v("side", "transit")
    sub.attrs["destination"] = game.v("area", "Banda Sea")
    game.call("transit_movement", sub=sub)
    assert str(sub.attrs["area"]) == "Solomons" and str(sub.attrs["smz"]) == "Guadalcanal"
    assert str(sub.attrs["side"]) == "patrol"
    # the entry into the zone is a Transit Event check with +2 [20.3]
    entry = game.events("roll", rule="19.1")[-1]
    assert [t.value for t in entry.modifiers if t.rule == "20.3"] == [2]


def test_an_rtb_result_on_the_last_leg_stops_the_boat_short_of_its_base_19_11(
    silent_war: Checked,
) -> None:
    # [19.11] "If a submarine receives an involuntary RTB result (regardless of whether it is
    # already in RTB), the submarine is placed in the Done section (as per [15.22]) of the
    # OpArea used to determine the Transit Event check." From the Marshalls the boat passes
    # the Hawaiian Islands (red from box 9 in War Period 1) into Pearl Harbor: a check of
    # 9 (Transit side -1, Spotted +1 [19.1]) reaches red; row 9, column 7: RTB (provisional).
    game = Game(silent_war, [9, 9, 7])
    game.set(active_bases=(game.v("base", "Pearl Harbor"),))
    sub = game.sub_at_sea("Tautog", "Marshalls", spotted=True)
    game.call("involuntary_rtb", sub=sub)
    game.call("return_to_base", sub=sub)
    assert [e.result for e in game.events("lookup") if e.table == "transit_event_table"] == ["RTB"]
    assert sub.attrs["base"] is None
    assert str(sub.attrs["area"]) == "Hawaiian Islands" and str(sub.attrs["section"]) == "done"
    assert game.dice_left() == 0


def test_the_player_picks_the_opareas_on_a_tie_for_an_rtb_result_19_11(
    silent_war: Checked,
) -> None:
    # [19.11] "If more than one OpArea could have been used (lowest number on the Area
    # Activity Chart which contains a red box is the same), the submarine is placed in
    # whichever OpArea the player decides." In War Period 1 the East China Sea and the Empire
    # Pacific both turn red at the same box (provisional charts, read from the rulebook).
    game = Game(silent_war, [9, 9, 7], rtb_area="Empire Pacific")  # row 9, column 7: RTB
    ecs, empire = game.v("area", "East China Sea"), game.v("area", "Empire Pacific")
    assert game.call("red_start", a=ecs) == game.call("red_start", a=empire)
    sub = game.sub_at_sea("Tautog", "N. Philippine Sea")
    result = game.call("transit_event_check", sub=sub, passed=[ecs, empire])
    assert str(result) == "RTB"
    (asked,) = game.events("decision", name="rtb_area")
    assert asked.options == ["East China Sea", "Empire Pacific"]
    assert sub.attrs["area"] == empire and str(sub.attrs["section"]) == "done"
