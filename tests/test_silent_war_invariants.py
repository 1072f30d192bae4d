"""Silent War 2.1 invariants, checked after every turn of a played game (issue 11 §4).

A turn is over when the End Turn Segment has run: no combat is in progress, so the state must
be one a player could lay out on the table. Each check returns the breaches it finds, named by
invariant; ``play_checked`` plays a game turn by turn and gathers them. The checks read only
the game state and the rule text's own numbers (quoted next to each), never our own output.
bench/campaigns.py plays the same checker over thousands of games.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

import pytest
from attrs import define, field

from rulekit.book.checker import Checked, load
from rulekit.engine.values import Entity
from rulekit.errors import RulekitError
from rulekit.play.runner import Game, new_game

# [2.3 B2] "Some specific named Japanese ships are provided ... If sunk, these ships are
# permanently removed from play." Each is one piece: it may never be in play twice.
UNIQUE_SHIPS = frozenset(
    {
        "Akagi",
        "Kaga",
        "Hiryu",
        "Shokaku",
        "Shinano",
        "Taiho",
        "Yamato",
        "Musashi",
        "Ise",
        "Asahi",
        "Izumo",
        "Asahi Maru",
        "Kiku Maru",
        "Akashi",
        "Erimo",
        "Iro",
    }
)

# [3.13] "Ten Japanese ship pieces have Entry Dates printed on them": once entered, in the War
# Mix until sunk. The named units without a date are chosen at random at each sort [3.11]
# (a carrier in the mix may be another one after the next sort).
DATED_SHIPS = frozenset({"Yamato", "Musashi", "Ise", "Taiho", "Shinano"})

# [2.3 B2] "hospital ships Asahi Maru and Kiku Maru; and naval auxiliaries Akashi, Erimo, and
# Iro": the sunk ones are replaced (the repair ship Asahi and the cruiser Izumo are not).
NAVAL_AUXILIARIES = frozenset({"Akashi", "Erimo", "Iro"})

# [3.13] "the Yamato piece is used for both ships": once Musashi enters, the one piece is
# "Yamato/Musashi"; when one of them is sunk the piece goes on as the other.
PAIR = frozenset({"Yamato", "Musashi"})


def ships_of(name: str) -> set[str]:
    """The ships a piece stands for: its name, or both of the Yamato pair."""
    return set(name.split("/")) if set(name.split("/")) <= PAIR else {name}


# A piece's printed face: what it is may not change while it is in play.
PRINTED = (
    "name",
    "category",
    "type",
    "tonnage",
    "defense",
    "asw",
    "zed",
    "flag",
    "cup",
    "aircraft",
    "event",
    "diligent",
    "no_tdc",
    "hospital",
    "italic",
)
# What combat lays on a piece; Clean-Up [14.8] and [18.2] take it all off again.
COMBAT_MARKS = {
    "revealed": False,
    "damaged": False,
    "sunk": False,
    "tdc": None,
    "points": 0,
    "unmodified_tdc": False,
    "escort_targeted": False,
}
CUPS = ("cup_a", "cup_b", "cup_c", "cup_d")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
REPAIR_BOXES = ("Repair 3", "Repair 2", "Repair 1", "Hold")

INVARIANTS = (
    "game_runs",
    "boat_in_one_place",
    "boat_unique",
    "boat_markers",
    "combat_cleared",
    "no_tdc_returned",
    "pieces_conserved",
    "pieces_unchanged",
    "combat_event_per_cup",
    "unique_ships",
    "skipper_unique",
    "dates_advance",
    "tracks_in_range",
)


def text(value: Any) -> str:
    """An enum value or a plain value, as the rules spell it ('' for none)."""
    if value is None:
        return ""
    member = getattr(value, "member", None)
    return str(member) if member is not None else str(value)


def month_index(values: dict[str, Any]) -> int:
    return int(values["year"]) * 12 + MONTHS.index(text(values["month"]))


@define
class Snapshot:
    """What a turn's end looked like, for comparing with the next one."""

    pieces: dict[int, dict[str, Any]]  # id(entity) -> printed face, pieces in the cups
    held: set[int]  # No TDC Solution chits out of their cups
    entities: dict[int, Entity]
    date: tuple[int, int]  # (month index, week)
    war_period: str
    ships_sunk: int
    tonnage_sunk: int
    subs_lost: int
    entered: set[str]  # dated ships put into the War Mix [3.13]
    sunk_unique: set[str]


@define
class Report:
    """The breaches of one game: (turn, invariant, what) and the turns played."""

    seed: int
    policy: str
    turns: int = 0
    breaches: list[tuple[int, str, str]] = field(factory=list)

    def broken(self) -> Counter[str]:
        return Counter(name for _, name, _ in self.breaches)


def pieces_in_cups(values: dict[str, Any]) -> list[tuple[str, Entity]]:
    return [(cup[-1].upper(), u) for cup in CUPS for u in values[cup]]


def snapshot(values: dict[str, Any], before: Snapshot | None) -> Snapshot:
    pieces = {id(u): {k: text(u.attrs[k]) for k in PRINTED} for _, u in pieces_in_cups(values)}
    entities = {id(u): u for _, u in pieces_in_cups(values)}
    names = {s for _, u in pieces_in_cups(values) for s in ships_of(text(u.attrs["name"]))}
    entered = set(before.entered if before else ()) | (names & DATED_SHIPS)
    return Snapshot(
        pieces,
        {id(u) for u in values["held"]},
        entities,
        (month_index(values), int(values["week"])),
        text(values["war_period"]),
        int(values["ships_sunk"]),
        int(values["tonnage_sunk"]),
        int(values["subs_lost"]),
        entered,
        set(before.sunk_unique if before else ()),
    )


# ---- the checks -------------------------------------------------------------------------------


def check_boats(values: dict[str, Any]) -> Iterable[tuple[str, str]]:
    subs = values["subs"]
    names = Counter(text(s.attrs["name"]) for s in subs)
    for name, n in names.items():
        if n > 1:
            # [2.3 A] "Every U.S. and many Allied submarines ... are represented by their own
            # playing piece": one piece each, however often the list names it.
            yield "boat_unique", f"{name} is in play {n} times"
    for s in subs:
        a = s.attrs
        name = text(a["name"])
        if text(a["status"]) != "active":
            continue
        at_sea = a["area"] is not None
        # [21.1] a Forward Base is a Submarine Tender in an SMZ: a boat at it has a box there
        ashore = [x for x in (a["base"], a["tender"]) if x is not None]
        at_base = bool(ashore) or a["box"] is not None
        if at_sea == at_base or (at_base and (len(ashore) != 1 or a["box"] is None)):
            yield (
                "boat_in_one_place",
                f"{name}: area={text(a['area'])!r} base={text(a['base'])!r} "
                f"tender={text(a['tender'])!r} box={text(a['box'])!r}",
            )
            continue
        if a["smz"] is not None and not at_sea:
            yield "boat_in_one_place", f"{name} is in {text(a['smz'])} but not at sea"
        if not 0 <= int(a["damage"]) <= 2:
            # [18.13] a third Damage marker sinks the submarine
            yield "boat_markers", f"{name} has {a['damage']} Damage markers"
        if not 0 <= int(a["skipper"]) <= 2:
            yield "boat_markers", f"{name} has a +{a['skipper']} Super Skipper"  # [25.1]
        if a["rtb"] is not None and text(a["side"]) != "transit":
            # [15.22] "It remains on, or is flipped to its Transit side, receives an
            # involuntary RTB marker"; [15.21] voluntary: "Flip the submarine to its Transit side"
            yield "boat_markers", f"{name} has an RTB marker but is {text(a['side'])} side up"
        if at_base:
            # [15.23] "Upon entering a Base, remove any Spotted marker"; the RTB is over and
            # the damage became a Repair Box [18.11].
            if a["spotted"] or a["rtb"] is not None or int(a["damage"]) > 0:
                where = text(a["base"]) or text(a["tender"])
                yield "boat_markers", f"{name} is at {where} with sea markers on"
        elif text(a["section"]) != "done":
            # every way through a turn at sea ends in the "Done" section ([12.0], [14.7],
            # [15.1], [15.22]); [11.0] moves them back to "Operating" next turn
            yield "boat_markers", f"{name} ends the turn in the {text(a['section'])} section"
    lost = sum(1 for s in subs if text(s.attrs["status"]) == "sunk")
    if lost != int(values["subs_lost"]):
        # [18.12]/[18.13] "Advance the Submarines Sunk marker by one"
        yield "tracks_in_range", f"Submarines Lost marker {values['subs_lost']}, {lost} sunk"


def check_display(values: dict[str, Any], tdc_markers: list[int]) -> Iterable[tuple[str, str]]:
    if values["display"]:
        yield "combat_cleared", f"{len(values['display'])} pieces left on the Combat Display"
    if values["combatants"]:
        yield "combat_cleared", "submarines left on the Combat Display"
    if values["held"]:
        # [14.8] "Return the Japanese units and Combat Event markers to the appropriate cups";
        # No TDC Solution chits are "placed in cups ... per the War Mix Table" [3.11]
        yield "no_tdc_returned", f"{len(values['held'])} No TDC Solution chits out of their cups"
    if sorted(values["tdc_pool"]) != sorted(tdc_markers):
        # [14.8] "Remove TDCs from the combat display and return them to the draw pool."
        yield "combat_cleared", f"TDC pool {sorted(values['tdc_pool'])} is not the full set"


def check_pieces(
    values: dict[str, Any], before: Snapshot, now: Snapshot, resorted: bool
) -> Iterable[tuple[str, str]]:
    seen: Counter[int] = Counter(id(u) for _, u in pieces_in_cups(values))
    for n in seen.values():
        if n > 1:
            yield "pieces_conserved", f"one piece is in the cups {n} times"
    for cup, u in pieces_in_cups(values):
        a = u.attrs
        if text(a["cup"]) != cup:
            yield "pieces_conserved", f"{text(a['name'])} of cup {text(a['cup'])} is in cup {cup}"
        marks = [k for k, v in COMBAT_MARKS.items() if a[k] != v]
        if marks:
            yield "pieces_unchanged", f"{text(a['name'])} is back in its cup with {marks} on"
        old = before.pieces.get(id(u))
        if old is not None:
            face = {k: text(a[k]) for k in PRINTED}
            changed = [k for k in PRINTED if face[k] != old[k]]
            if changed:
                # e.g. [14.12] Cautious: a Diligent Escort "is treated as a normal DD" for
                # that combat, not for the rest of the war
                what = ", ".join(f"{k} {old[k]}->{face[k]}" for k in changed)
                yield "pieces_unchanged", f"{old['name']} changed {what}"
    if resorted:
        return  # [3.15]/[17.0 D] the War Mix is sorted anew: check_unique covers named ships
    # a No TDC Solution chit kept out of its cup is reported once, by no_tdc_returned
    held = {id(u) for u in values["held"]}
    gone = [i for i in before.pieces if i not in now.pieces and i not in held]
    unreplaced: list[str] = []  # sunk hospital ships and naval auxiliaries: each needs a Merchant
    for ident in gone:
        old = before.pieces[ident]
        piece = before.entities[ident]
        sunk_named = piece.attrs["sunk"] and old["italic"] == "True"
        # [3.13] "Additionally, remove BB36t in 3/43."
        bb36t = old["name"] == "BB36t" and before.date == (1943 * 12 + 2, 1)
        # [3.13] the Yamato piece becomes "Yamato/Musashi" (or one of them again)
        repainted = ships_of(old["name"]) <= PAIR and any(
            ships_of(p["name"]) & PAIR for p in now.pieces.values()
        )
        if not (sunk_named or bb36t or repainted):
            yield "pieces_conserved", f"{old['name']} (cup {old['cup']}) left the War Mix"
        # [2.3 B2] "If the sunk ship is a hospital ship or naval auxiliary, replace it with a
        # random appropriately-sized Merchant or Naval Auxiliary"
        auxiliary = old["hospital"] == "True" or old["name"] in NAVAL_AUXILIARIES
        if sunk_named and auxiliary:
            unreplaced.append(old["name"])
    for ident in now.pieces:
        if ident not in before.pieces and ident not in before.held:
            new = now.pieces[ident]
            dated = ships_of(new["name"]) <= UNIQUE_SHIPS or new["name"] == "Matsu"
            pair = ships_of(new["name"]) <= PAIR and any(
                ships_of(p["name"]) & PAIR for p in before.pieces.values()
            )
            if pair:
                continue  # the Yamato piece repainted [3.13]
            if unreplaced and new["category"].startswith("M "):
                unreplaced.pop(0)
                continue  # [2.3 B2] the Merchant replacing a sunk hospital ship
            # [3.13] entries are made in the Reinforcements Phase [8.0] of a month's first week
            if not (dated and before.date[1] == 1):
                yield "pieces_conserved", f"{new['name']} appeared in cup {new['cup']}"
    for name in unreplaced:  # two sunk in one turn are two Merchants, whatever else left
        yield "pieces_conserved", f"sunk {name} was not replaced"


def check_cups(values: dict[str, Any]) -> Iterable[tuple[str, str]]:
    for cup in CUPS:
        events = sum(1 for u in values[cup] if u.attrs["event"])
        if events != 1:
            # [19.2] "Each cup contains one chit marked "Combat Event.""
            yield "combat_event_per_cup", f"{cup} holds {events} Combat Event chits"


def check_unique(
    values: dict[str, Any], before: Snapshot, now: Snapshot
) -> Iterable[tuple[str, str]]:
    in_play = Counter(
        ship
        for _, u in pieces_in_cups(values)
        for ship in ships_of(text(u.attrs["name"]))
        if ship in UNIQUE_SHIPS
    )
    for name, n in in_play.items():
        if n > 1:
            yield "unique_ships", f"{name} is in the War Mix {n} times"
    for ident, old in before.pieces.items():
        if (
            ident not in now.pieces
            and old["name"] in UNIQUE_SHIPS
            and before.entities[ident].attrs["sunk"]
        ):
            now.sunk_unique.add(old["name"])
    # the sunk one of the Yamato pair is drawn when their piece is sunk [3.13] (bases.rk
    # named_ships: 1 Yamato, 2 Musashi)
    now.sunk_unique |= {
        {1: "Yamato", 2: "Musashi"}[i] for i in values["removed_named"] if i in (1, 2)
    }
    for name in in_play:
        if name in now.sunk_unique:
            # [2.3 B2] "If sunk, these ships are permanently removed from play."
            yield "unique_ships", f"{name} was sunk and is back in the War Mix"
    for name in before.entered - now.sunk_unique:
        if name not in in_play and name not in ("Asahi Maru", "Kiku Maru"):
            # [3.13] dated ships stay in the War Mix from their date of entry until sunk
            yield "unique_ships", f"{name} has left the War Mix without being sunk"
    skippers = [text(s.attrs["skipper_name"]) for s in values["subs"] if s.attrs["skipper_name"]]
    skippers += [text(x) for x in values["skipper_pool"]]
    skippers += [text(p.get("skipper")) for p in values["skippers_waiting"]]
    for name, n in Counter(skippers).items():
        if n > 1:
            yield "skipper_unique", f"Super Skipper {name} is in play {n} times"  # [25.2]


def check_tracks(
    values: dict[str, Any], before: Snapshot, now: Snapshot, ended: bool = False
) -> Iterable[tuple[str, str]]:
    month, week = before.date
    expected = (month, week + 1) if week < 4 else (month + 1, 1)
    # [16.1] a game won or lost in Conclude Turn "ends immediately": the date stays
    if ended and values["game_result"] is not None:
        expected = before.date
    if now.date != expected:
        # [16.3] "Advance the Week marker, and the Month/Year markers as needed."
        yield "dates_advance", f"date went from {before.date} to {now.date}"
    if not 1 <= now.date[1] <= 4:
        yield "dates_advance", f"week {now.date[1]}"
    if not -2 <= int(values["torpedo"]) <= 2:
        yield "tracks_in_range", f"torpedo {values['torpedo']}"  # [6.0] -2 to +2
    for name, old in (
        ("ships_sunk", before.ships_sunk),
        ("tonnage_sunk", before.tonnage_sunk),
        ("subs_lost", before.subs_lost),
    ):
        if int(values[name]) < old:
            yield "tracks_in_range", f"{name} went down from {old} to {values[name]}"
    if now.war_period < before.war_period:
        yield (
            "tracks_in_range",
            f"War Period went back from {before.war_period} to {now.war_period}",
        )
    if len(values["ultra_areas"]) > 3:
        yield "tracks_in_range", f"{len(values['ultra_areas'])} ULTRA areas"  # [7.13]
    if int(values["wolfpack_experience"]) < 0:
        yield "tracks_in_range", "negative Wolfpack Experience"


def check_turn(
    game: Game, before: Snapshot, tdc_markers: list[int]
) -> tuple[Snapshot, list[tuple[str, str]]]:
    values = game.interp.state.values
    now = snapshot(values, before)
    resorted = now.war_period != before.war_period
    found: list[tuple[str, str]] = []
    found += check_boats(values)
    found += check_display(values, tdc_markers)
    found += check_pieces(values, before, now, resorted)
    found += check_cups(values)
    found += check_unique(values, before, now)
    found += check_tracks(values, before, now, game.ended is not None)
    return now, found


def play_checked(
    book: Checked,
    seed: int,
    policy: str = "default",
    scenario: str = "short_campaign",
    turns: int | None = None,
) -> Report:
    """Play one game turn by turn, checking every invariant after each turn, for at most
    ``turns`` turns when given."""
    game = new_game(book, scenario, seed, policy)
    game.interp.mute(True)  # untraced (as simulate plays): the state alone is checked
    if turns is not None:
        game.scenario.info.turns = turns
    tdc_markers = list(game.interp.state.values["tdc_pool"])
    report = Report(seed, policy)
    before = snapshot(game.interp.state.values, None)
    for _, problem in check_boats(game.interp.state.values):
        report.breaches.append((0, _, problem))
    while game.ended is None:
        try:
            game.play(1)
        except RulekitError as exc:
            # a rule the rulebook enforces (`require`) broke, or the interpreter stopped
            report.breaches.append((game.turn, "game_runs", str(exc).splitlines()[0]))
            break
        before, found = check_turn(game, before, tdc_markers)
        report.breaches += [(game.turn, name, what) for name, what in found]
        report.turns = game.turn
    return report


# ---- the tests: a small sample of campaigns, every invariant after every turn -------------

# Seeds 0..SHORT_GAMES-1 play the short campaign as the scenario says; LONG_SEED plays the
# full campaign to February 1944, to pass the dated entries (Yamato 5/42 [3.13]), the
# reinforcement list up to 1944 [8.0], [25.3] and War Period changes [17.0].
SHORT_GAMES = 8  # more: bench/campaigns.py
LONG_SEED = 0
LONG_TURNS = 115
POLICIES = ("default", "random")

# Breaches the sample is known to show, each caused by a deviation listed in issue 11 and being
# fixed; strict, so the test reports the day the fix lands.
KNOWN: dict[tuple[str, str], str] = {}


@cache
def sample(policy: str) -> tuple[Report, ...]:
    from conftest import RULEBOOKS

    book = load(str(RULEBOOKS / "silent_war"))
    games = [play_checked(book, seed, policy) for seed in range(SHORT_GAMES)]
    games.append(play_checked(book, LONG_SEED, policy, "full_campaign", turns=LONG_TURNS))
    return tuple(games)


def _cases() -> list[Any]:
    cases = []
    for policy in POLICIES:
        for name in INVARIANTS:
            reason = KNOWN.get((policy, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(policy, name, marks=marks, id=f"{policy}-{name}"))
    return cases


@pytest.mark.parametrize(("policy", "invariant"), _cases())
def test_invariant_holds_after_every_turn(policy: str, invariant: str) -> None:
    breaches = [
        f"seed {r.seed} turn {turn}: {what}"
        for r in sample(policy)
        for turn, name, what in r.breaches
        if name == invariant
    ]
    assert not breaches, f"{len(breaches)} breaches, first: {breaches[:3]}"


def test_the_sample_is_played(silent_war: Checked) -> None:
    # the checks above would pass vacuously if no turn were played
    for policy in POLICIES:
        games = sample(policy)
        assert all(r.turns >= 1 for r in games)
        assert games[-1].turns == LONG_TURNS


# ---- the checker itself: each invariant catches the breach it names --------------------------


def _started(book: Checked) -> Game:
    return new_game(book, "short_campaign", 1, "default")


def test_checker_catches_a_boat_in_two_places(silent_war: Checked) -> None:
    game = _started(silent_war)
    tautog = game.interp.state.values["subs"][0]
    tautog.attrs["area"] = game.interp.state.values["subs"][-1].attrs["area"]
    assert [n for n, _ in check_boats(game.interp.state.values)] == ["boat_in_one_place"]


def test_checker_catches_a_lost_piece_and_a_date_standing_still(silent_war: Checked) -> None:
    game = _started(silent_war)
    values = game.interp.state.values
    tdc = list(values["tdc_pool"])
    before = snapshot(values, None)
    values["cup_a"] = values["cup_a"][1:]  # a piece vanishes, and no week passes
    _, found = check_turn(game, before, tdc)
    names = {n for n, _ in found}
    assert {"pieces_conserved", "dates_advance"} <= names


def test_checker_catches_a_changed_piece_and_a_second_event_chit(silent_war: Checked) -> None:
    game = _started(silent_war)
    values = game.interp.state.values
    before = snapshot(values, None)
    game.play(1)
    escort = next(u for u in values["cup_b"] if u.attrs["diligent"])
    escort.attrs["diligent"] = False
    chit = next(u for u in values["cup_a"] if u.attrs["event"])
    values["cup_b"] = (*values["cup_b"], chit)
    _, found = check_turn(game, before, list(values["tdc_pool"]))
    names = {n for n, _ in found}
    assert {"pieces_unchanged", "combat_event_per_cup", "pieces_conserved"} <= names
