"""Hidden information is hidden: from the default and random policies and from the screen of
``rulekit play`` (docs/LANGUAGE.md, "Hidden information").

The property: change the identity of a face-down counter (what its front says: name, type,
tonnage, ratings) for another piece with the same back, and nothing decided or shown before
the counter is turned face up changes. Silent War, [13.1 C]: "Pieces are drawn from the cup
(without examining them) and placed face down on the Combat Display"; [14.13] "The player
reveals a number of Japanese units ... by turning them face up, one at a time."
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from rulekit.book.checker import Checked
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DecisionRequest, DefaultPolicy, Policy, RandomPolicy
from rulekit.engine.values import Entity, showing_pieces
from rulekit.play.runner import new_game
from rulekit.play.screen import Viewer, option_labels, story

# What the front of a Silent War counter says (forces.rk, kind unit): everything a face-down
# piece keeps to itself. The back (flag), the cup and the column are seen.
FRONT = (
    "name",
    "category",
    "type",
    "tonnage",
    "defense",
    "asw",
    "zed",
    "aircraft",
    "event",
    "diligent",
    "no_tdc",
    "hospital",
    "italic",
    "named",
)


class _Stop(Exception):
    pass


def _swap_fronts(a: Entity, b: Entity) -> None:
    for attr in FRONT:
        a.attrs[attr], b.attrs[attr] = b.attrs[attr], a.attrs[attr]
    a.label, b.label = b.label, a.label


def _partner(state: dict[str, Any], piece: Entity) -> Entity | None:
    """A piece still in the same cup, with the same back, whose front differs the most."""
    cup = state[f"cup_{str(piece.attrs['cup']).lower()}"]
    same_back = [
        u
        for u in cup
        if u.attrs["flag"] == piece.attrs["flag"]
        and not (u.attrs["event"] or u.attrs["no_tdc"] or u.attrs["diligent"])
        and u.label != piece.label
    ]
    if not same_back:
        return None
    return max(same_back, key=lambda u: abs(u.attrs["tonnage"] - piece.attrs["tonnage"]))


class Probe:
    """Answers through ``inner``; at the first decision with face-down pieces on the Combat
    Display, swaps the front of the ``which``-th of them (when ``swap``), then records each
    decision and what the screen shows until that piece is turned face up."""

    def __init__(self, inner: Policy, which: int, swap: bool) -> None:
        self.inner, self.which, self.swap = inner, which, swap
        self.interp: Interpreter | None = None
        self.viewer: Viewer | None = None
        self.piece: Entity | None = None
        self.seen: list[tuple[Any, ...]] = []
        self.told = 0
        self.stopped = False
        self.skipped = False

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        i, viewer = self.interp, self.viewer
        assert i is not None and viewer is not None
        state = i.state.values
        if self.piece is None:
            down = [u for u in state.get("display", ()) if not u.attrs["revealed"]]
            if len(down) > self.which:
                self.piece = down[self.which]
                partner = _partner(state, self.piece)
                if partner is None:
                    self.skipped = self.stopped = True
                    raise _Stop
                if self.swap:
                    _swap_fronts(self.piece, partner)
                self.told = len(i.trace.events)
        if self.piece is not None:
            if self.piece.attrs["revealed"] or self.piece not in state.get("display", ()):
                self.stopped = True
                raise _Stop
            events = i.trace.events
            self.told = min(self.told, len(events))
            told = story(viewer.conceal(events[self.told :]))
            self.told = len(events)
            title = viewer.interpolate(request.title or request.name)
            labels = option_labels(viewer, request.options)
        choice, by = self.inner.decide(request)
        if self.piece is not None:
            same = [k for k, o in enumerate(request.options) if o is choice]
            index = same[0] if same else request.options.index(choice)
            self.seen.append((request.name, index, by, title, tuple(labels), tuple(told)))
            if len(self.seen) >= 40:
                self.stopped = True
                raise _Stop
        return choice, by


def _until_revealed(
    silent_war: Checked, seed: int, make: Any, which: int, swap: bool
) -> Probe | None:
    probe = Probe(make(), which, swap)
    game = new_game(silent_war, None, seed, policy=probe)
    probe.interp = game.interp
    probe.viewer = Viewer(silent_war, game.interp)
    with showing_pieces(probe.viewer.face):
        try:
            game.play(2)
        except Exception:
            if not probe.stopped:
                raise
    return None if probe.skipped or probe.piece is None else probe


@contextmanager
def _nothing() -> Iterator[None]:
    yield


POLICIES = {
    "default": lambda seed: DefaultPolicy,
    "random": lambda seed: lambda: RandomPolicy(seed),
}


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_a_face_down_counter_changes_nothing_before_it_is_revealed(
    silent_war: Checked, policy: str
) -> None:
    compared = 0
    for seed in (0, 1, 9):  # seed 9: the default placed a TDC marker by a face-down tonnage
        for which in range(6):
            make = POLICIES[policy](seed)
            plain = _until_revealed(silent_war, seed, make, which, swap=False)
            swapped = _until_revealed(silent_war, seed, make, which, swap=True)
            if plain is None or swapped is None:
                continue
            compared += 1
            for k, (a, b) in enumerate(zip(plain.seen, swapped.seen, strict=False)):
                assert a == b, f"seed {seed}, piece {which}, decision {k}: {a} != {b}"
            assert len(plain.seen) == len(swapped.seen), (seed, which)
    assert compared >= 6  # the property was put to the test, not skipped


# ---- [14.14]-[14.15] TDC markers ----------------------------------------------------------------

TDC_14_14 = (
    "The player places TDC markers (without examining them), one per target, on any of the "
    "revealed OR face down Japanese ships in the same column containing the submarine or in an "
    "adjacent column. Once they are all placed, TDC markers may not be moved."
)
TDC_14_15 = "The player reveals the TDC markers and selects targets for attack."


class TdcProbe:
    """At the first TDC placement of the game, reverses the pool of face-down TDC markers
    (when ``swap``); records each placement and what the screen shows, up to the first
    decision after the last marker is placed."""

    def __init__(self, swap: bool) -> None:
        self.swap = swap
        self.inner = DefaultPolicy()
        self.interp: Interpreter | None = None
        self.viewer: Viewer | None = None
        self.seen: list[tuple[Any, ...]] = []
        self.told = 0
        self.placing = False
        self.stopped = False

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        i, viewer = self.interp, self.viewer
        assert i is not None and viewer is not None
        placing = request.name == "target" and "TDC" in (request.title or "")
        if placing and not self.placing:
            self.placing = True
            pool = i.state.values["tdc_pool"]
            assert len(set(pool)) > 1
            if self.swap:
                i.state.values["tdc_pool"] = tuple(reversed(pool))
            self.told = len(i.trace.events)
        if not self.placing:
            return self.inner.decide(request)
        events = i.trace.events
        self.told = min(self.told, len(events))
        told = tuple(story(viewer.conceal(events[self.told :])))
        self.told = len(events)
        labels = tuple(option_labels(viewer, request.options))
        if not placing:  # the markers are all placed: what shows now is after [14.15]
            self.seen.append(("after", told))
            self.stopped = True
            raise _Stop
        choice, by = self.inner.decide(request)
        self.seen.append((request.name, request.options.index(choice), labels, told))
        return choice, by


def _tdc_run(silent_war: Checked, seed: int, swap: bool) -> TdcProbe:
    probe = TdcProbe(swap)
    game = new_game(silent_war, None, seed, policy=probe)
    probe.interp = game.interp
    probe.viewer = Viewer(silent_war, game.interp)
    with showing_pieces(probe.viewer.face):
        try:
            game.play(2)
        except Exception:
            if not probe.stopped:
                raise
    assert probe.placing, seed
    return probe


@pytest.mark.parametrize("seed", [0, 1, 9])
def test_tdc_markers_are_placed_without_examining_them_14_14(
    silent_war: Checked, seed: int
) -> None:
    # [14.14] (TDC_14_14): which marker lies where is not known while they are placed, so
    # the placements and the screen are the same whatever the markers say
    plain, swapped = _tdc_run(silent_war, seed, False), _tdc_run(silent_war, seed, True)
    placed = plain.seen[:-1]
    assert len(placed) >= 2, "more than one marker placed"
    assert placed == swapped.seen[:-1]
    for _, _, labels, told in placed:
        assert not any("TDC" in x and any(c.isdigit() for c in x) for x in labels)
        assert not any(".tdc:" in line for line in told), told


def test_tdc_markers_are_revealed_together_14_15(silent_war: Checked) -> None:
    # [14.15] (TDC_14_15): once all are placed they are turned up together, and then the
    # player sees each value: the story says so, and a target shows its marker
    probe = _tdc_run(silent_war, 9, False)
    after = "\n".join(probe.seen[-1][1])
    assert "TDC markers are revealed" in after, after
    assert ".tdc: none ->" not in "\n".join("\n".join(s[3]) for s in probe.seen[:-1])


def test_a_piece_drawn_from_a_cup_is_told_by_its_cup_not_its_place_in_it(
    silent_war: Checked,
) -> None:
    # [13.1 C] "Pieces are drawn from the cup (without examining them)": the story says from
    # which cup, not which of the cup's pieces it was (its position in the cup, which the
    # set-up's order gives away) nor the column it sat in at an earlier combat
    probe = _until_revealed(silent_war, 9, POLICIES["default"](9), 0, swap=False)
    assert probe is not None and probe.interp is not None and probe.viewer is not None
    told = [line.strip() for line in story(probe.viewer.conceal(probe.interp.trace.events))]
    # (the TDC markers drawn face down are told as such: "drew a face-down marker")
    drawn = [line for line in told if line.startswith("drew ") and "marker" not in line]
    told_by_cup = r"drew face-down piece from cup [A-D] \[13\.1 C\]"
    assert drawn and all(re.fullmatch(told_by_cup, line) for line in drawn)
    assert not any(re.search(r"item \d+ of \d+", line) for line in told if "eligible" in line)


# ---- the language: a small rulebook, every policy --------------------------------------------

CONVOY = """rulebook "Convoy" edition "1"
dice d6 = 1..6

kind ship [1.0] "a ship, face down until attacked"
    name: text = "ship"
    tonnage: int = 0
    revealed: bool = false

HIDDEN

state targets: list of ship = [] [1.0]
state sunk: int = 0 [1.0]

procedure set_up(big_first: bool) [1.0] "Two ships, face down"
    let big = ship(name: "Big", tonnage: 9)
    let small = ship(name: "Small", tonnage: 1)
    targets = if big_first then [big, small] else [small, big]

procedure biggest(xs: list of ship) -> ship [2.1] "default: the biggest ship"
    let most = max(x.tonnage for x in xs)
    return first([x for x in xs if x.tonnage = most])

procedure attack [2.0] "Attack"
    choose target from targets default biggest(targets) [2.1] "Which ship"
    target.revealed = true
    if roll d6 >= 4:
        sunk += target.tonnage
"""
HIDDEN = 'hidden ship: name, tonnage unless revealed [1.1] "ships are face down"'


def _convoy(make_rulebook: Any, hidden: bool) -> Checked:
    from rulekit.book.checker import load

    return load(str(make_rulebook(CONVOY.replace("HIDDEN", HIDDEN if hidden else ""))))


def _attacked(checked: Checked, policy: Any, big_first: bool, revealed: bool = False) -> int:
    """The position of the ship the policy attacks."""
    from rulekit.engine.dice import SeededDice

    i = Interpreter(checked, SeededDice(1), policy)
    attach = getattr(policy, "attach", None)
    if attach is not None:
        attach(i)
    i.call("set_up", {"big_first": big_first})
    targets = i.state.values["targets"]
    for ship in targets:
        ship.attrs["revealed"] = revealed
    i.call("attack", {})
    index: int = next(e.index for e in i.trace.events if e.event == "decision")
    assert targets[index].attrs["revealed"]  # the ship attacked is turned up
    return index


@pytest.mark.parametrize("policy", ["default", "advised"])
def test_a_policy_decides_on_what_it_can_see(make_rulebook: Any, policy: str) -> None:
    from rulekit.analysis.advised import AdvisedPolicy

    def make(checked: Checked) -> Any:
        return DefaultPolicy() if policy == "default" else AdvisedPolicy(checked, "sunk")

    seen = _convoy(make_rulebook, hidden=True)
    # face down, the two ships are alike: the same position is attacked whichever is where
    assert _attacked(seen, make(seen), True) == _attacked(seen, make(seen), False)
    # face up, the policy goes for the big ship: the test above can tell
    assert _attacked(seen, make(seen), True, revealed=True) == 0
    assert _attacked(seen, make(seen), False, revealed=True) == 1
    # without the declaration the policy reads the counters' fronts
    told = _convoy(make_rulebook, hidden=False)
    assert _attacked(told, make(told), True) == 0
    assert _attacked(told, make(told), False) == 1


def test_hidden_declarations_are_checked(make_rulebook: Any) -> None:
    from rulekit.book.checker import load
    from rulekit.errors import RulekitError

    for bad, message in [
        ("hidden ship: name, tonage unless revealed", "a ship has no attribute 'tonage'"),
        ("hidden ship: name unless tonnage", "'tonnage' must be a bool attribute"),
        ("hidden shp: name unless revealed", "there is no kind 'shp'"),
        ("hidden targts", "there is no state variable 'targts'"),
        ("hidden sunk", "a hidden pool must be a list"),
    ]:
        path = make_rulebook(CONVOY.replace("HIDDEN", bad))
        with pytest.raises(RulekitError) as caught:
            load(str(path))
        assert message in str(caught.value), (bad, str(caught.value))
