"""One Silent War combat round, written by hand from rulebooks/silent_war/combat.rk.

The procedure `combat_round` [14.1] and everything it calls, statement by statement from the
.rk text (each block names its rule and the .rk line it follows), run from the [14.15]
Spearfish situation (examples/silent_war/spearfish_14_15.toml) as

    rulekit resolve rulebooks/silent_war combat_round \\
        --given examples/silent_war/spearfish_14_15.toml --seed N

does: the same dice (one `random.Random(seed)`; a d10 is `randrange(10)`, a draw from k > 1
items `randrange(k)`, as rulekit/engine/dice.py's SeededDice and the engine's `draw` take
them) and the default policy (each `choose` takes its `default`). The reference (`Game`,
`run_reference`) imports nothing of rulekit; `run_rulekit` runs the rulebook on the same
situation and reads the same end state, and tests/test_reference_combat.py compares them.

Besides the [14.15] situation, `variants()` changes it to take the paths it does not:
Cautious and Aggressive postures, a damaged or spotted boat (second and third Damage
markers), face-down pieces and TDC markers drawn from the pool, an escort targeted [28.4], a
re-attack round with a Rising Sun piece [14.4 A], a Tropical Storm and a Typhoon [7.21].
Branches none of them reach raise NotImplementedError: Combat Event chits [19.2], Diligent
Escorts [14.13], a piece returned to its cup [14.8] (aircraft in a storm [7.21]), surface
gunnery [19.21 #1], a circular run [19.21 #2], a loner [28.14], a Wolfpack spotted [24.6],
OpAreas other than the East China Sea.

    python bench/reference_combat.py --seeds 300   # the reference against rulekit
    python bench/reference_combat.py --bench       # seconds per call, side by side
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import sys
import time
import tomllib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEARFISH = ROOT / "examples" / "silent_war" / "spearfish_14_15.toml"
COLUMNS = ("A", "B", "C", "D")  # forces.rk:5 enum column
ORD = {c: i for i, c in enumerate(COLUMNS)}  # ord(column)

# ---- the pieces and the state, as the .rk declares them -----------------------------------

# forces.rk:68-92 kind unit: every field and its default
UNIT_DEFAULTS: dict[str, Any] = {
    "name": "unit",
    "category": None,
    "type": "M",
    "tonnage": 0,
    "defense": 1,
    "asw": 0,
    "zed": False,
    "flag": "Red Ball",
    "cup": "A",
    "column": "A",
    "revealed": False,
    "aircraft": False,
    "event": False,
    "diligent": False,
    "no_tdc": False,
    "hospital": False,
    "italic": False,
    "named": 0,
    "damaged": False,
    "sunk": False,
    "tdc": None,
    "unmodified_tdc": False,
    "points": 0,
    "escort_targeted": False,
}

# forces.rk:23-64 kind submarine: every field and its default (name, attack, defense and
# tactical have none: the situation gives them)
SUB_DEFAULTS: dict[str, Any] = {
    "class": "Gato",
    "nation": "US",
    "speed": 2,
    "range": 6,
    "readiness": 5,
    "endurance": "B",
    "crash_dive": 3,
    "early_gato": False,
    "skipper": 0,
    "skipper_name": None,
    "area": None,
    "smz": None,
    "base": None,
    "box": None,
    "side": "transit",
    "section": "done",
    "rtb": None,
    "destination": None,
    "home": None,
    "damage": 0,
    "spotted": False,
    "wolfpack": 0,
    "posture": "standard",
    "column": "B",
    "status": "active",
    "bypassed": False,
    "contact": "",
    "sank": 0,
    "sank_tonnage": 0,
    "reattacks": 0,
    "overhaul_until": 0,
    "withdrawing": False,
    "beyond_range": False,
    "tender": None,
    "bound_for": None,
    "bound_for_tender": None,
    "major_only": False,
}
SUB_FIELDS = ("name", "attack", "defense", "tactical", *SUB_DEFAULTS)


# map.rk:142-147 table area_activity: the red boxes of the East China Sea's rows only
RED_BOXES = {("East China Sea", "WP1"): 2, ("East China Sea", "WP2"): 3}
RED_BOXES.update({("East China Sea", "WP3"): 3, ("East China Sea", "WP4"): 3})
# combat.rk:459 [14.2 A3] table general_asw
GENERAL_ASW = {"WP1": 1, "WP2": 1, "WP3": 2, "WP4": 2}
# combat.rk:489-495 [14.2] table counterattack_table: per row of differences, the highest
# roll of No Effect, of Spotted, of Damaged, of Damaged + RTB (None: no Sunk on the row)
COUNTER_ROWS = (
    (7, 9, 10, None),  # 0 or less
    (6, 9, 10, 14),  # 1-2
    (5, 8, 9, 13),  # 3-4
    (4, 7, 8, 12),  # 5-6
    (3, 6, 7, 11),  # 7 or more
)


class Piece:
    """A game piece: fields as attributes, compared by identity (as rulekit's entities)."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.__dict__.update(fields)


# The state variables combat_round reads or changes, with their declared defaults
# (combat.rk:5-6, 81-82, 194-206; vocabulary.rk:6-14; events.rk:135, 203; weather.rk:35;
# forces.rk:114).
STATE_DEFAULTS: dict[str, Any] = {
    "display": [],
    "tdc_pool": [],
    "combatants": [],
    "have_attacked": [],
    "event_this_round": False,
    "deadly_division": False,
    "perfect_setup": False,
    "halve_attack": False,
    "circular_run_pending": False,
    "no_attack": False,
    "no_counterattack": False,
    "counterattack_first": False,
    "extra_attack": False,
    "asw_bonus": 0,
    "gunnery": False,
    "end_combat": False,
    "gunnery_drm": 0,
    "kills": [],
    "war_period": "WP1",
    "month": "Dec",
    "year": 1941,
    "torpedo": 0,
    "ships_sunk": 0,
    "tonnage_sunk": 0,
    "subs_lost": 0,
    "storms": [],
    "subs": [],
}
ARGUMENTS = ("sub", "reattack", "placed", "pinned")  # combat.rk:545


def load_situation(path: Path = SPEARFISH) -> dict[str, Any]:
    """The --given file as plain data (TOML tables and arrays)."""
    with path.open("rb") as f:
        return tomllib.load(f)


class Game:
    """The state, the pieces and the dice of one combat round."""

    def __init__(self, situation: dict[str, Any], rng: random.Random) -> None:
        for name, default in STATE_DEFAULTS.items():
            setattr(self, name, copy.copy(default))
        self.args: dict[str, Any] = {"reattack": False, "placed": False, "pinned": False}
        for key, value in situation.items():
            if key == "sub":
                self.args["sub"] = Piece({**SUB_DEFAULTS, **value})
            elif key == "display":
                self.display = [Piece({**UNIT_DEFAULTS, **u}) for u in value]
            elif key == "storms":
                self.storms = [Piece({"moved": False, **s}) for s in value]
            elif key in ARGUMENTS:
                self.args[key] = value
            elif key in STATE_DEFAULTS:
                setattr(self, key, copy.copy(value))
            else:
                raise NotImplementedError(f"{key}: not an input of the [14.15] situation")
        self.rng = rng

    # ---- dice (rulekit/engine/dice.py SeededDice.throw; compile_lookups.py draw) ----------

    def d10(self) -> int:
        return self.rng.randrange(10)  # dice d10 = 0..9 (rulebook.rk:10)

    def draw(self, pool: list[Any]) -> Any:
        """Draw one item, without replacement; one item left throws no die."""
        position = 0 if len(pool) == 1 else self.rng.randrange(len(pool))
        return pool.pop(position)

    # ---- combat.rk:545-611 [14.1] combat_round -------------------------------------------

    def combat_round(
        self, sub: Piece, reattack: bool = False, placed: bool = False, pinned: bool = False
    ) -> None:
        self.reset_round()
        if pinned:  # :547 [19.21 #8]
            self.no_attack = True
        if reattack:  # :550 [14.4] reposition: the default keeps the column (:554)
            sub.column = sub.column
        elif not placed:  # :556 [14.11] placement: default busiest_column() (:558)
            sub.column = self.busiest_column()
        # :560 [14.11] box limit
        here = [s for s in self.combatants if s.column == sub.column and s.status == "active"]
        if len(here) > self.box_limit(sub):
            raise RuntimeError("no more than one submarine per box (two per column for a Wolfpack)")
        self.reveal_units(sub, reattack)  # :561
        if self.end_combat or sub.status != "active":  # :562
            return
        if sub.contact == "loner":  # :564 [28.14]
            raise NotImplementedError("a loner [28.14]: not reachable from the [14.15] situation")
        if self.gunnery:  # :567 [19.21 #1]
            raise NotImplementedError("surface gunnery: not reachable from the [14.15] situation")
        if not self.gunnery and not self.no_attack:  # :569
            self.place_tdcs(sub)
            self.allocate(sub)
            if self.end_combat or sub.status != "active":  # :574 [14.15]
                return
            if self.gunnery:  # :576 [19.21 #1]
                raise NotImplementedError("surface gunnery: not reachable from [14.15]")
        countered = False  # :578
        if not self.gunnery and not self.no_attack:  # :579
            if (  # :580 [14.17] no target: no attack, and (:582) no counterattack
                not any(u.points > 0 for u in self.display)
                and not reattack
                and not self.counterattack_first
                and not self.circular_run_pending
            ):
                return
            if self.counterattack_first and not self.no_counterattack:  # :584 [19.21 #7]
                self.counterattack(sub, reattack)
                countered = True
                if sub.status != "active" or sub.rtb is not None:
                    self.end_combat = True
                    return
            possible = self.attack_possible(sub, reattack)  # :590
            self.attack_round(sub, reattack)  # :591
            if self.extra_attack:  # :592 [19.21 #9]
                self.remove_tdcs()
                self.place_tdcs(sub)
                self.allocate(sub)
                self.attack_round(sub, reattack)
            if self.circular_run_pending:  # :598 [19.21 #2]
                raise NotImplementedError("a circular run: not reachable from [14.15]")
            elif not possible and not reattack:  # :605 [14.17 A] no counterattack
                return
        if not self.no_counterattack and not countered:  # :608
            self.counterattack(sub, reattack)
        if sub.status != "active" or sub.rtb is not None:  # :610
            self.end_combat = True

    # combat.rk:208 [14.1] reset_round
    def reset_round(self) -> None:
        self.event_this_round = False
        self.perfect_setup = False
        self.halve_attack = False
        self.circular_run_pending = False
        self.no_attack = False
        self.no_counterattack = False
        self.counterattack_first = False
        self.extra_attack = False
        self.asw_bonus = 0

    # combat.rk:614 [14.11] box_limit
    def box_limit(self, sub: Piece) -> int:
        return 2 if sub.wolfpack > 0 else 1

    # combat.rk:37 [14.13] adjacent_or_same
    @staticmethod
    def adjacent_or_same(a: str, b: str) -> bool:
        return abs(ORD[a] - ORD[b]) <= 1

    # combat.rk:41 [14.11] busiest_column
    def busiest_column(self) -> str:
        reach = [
            sum(1 for u in self.display if self.adjacent_or_same(u.column, c) and not u.event)
            for c in COLUMNS
        ]
        most = max(reach)
        return next(c for c, r in zip(COLUMNS, reach, strict=True) if r == most)

    # combat.rk:49 [7.21] weather_of; weather.rk:39 weather_in
    def weather_of(self, sub: Piece) -> str:
        if sub.area is None:
            return "clear"
        here = [s for s in self.storms if s.area == sub.area]
        if any(s.level != "Tropical Storm" for s in here):
            return "typhoon"
        if here:
            return "tropical_storm"
        return "clear"

    # ---- [14.13] revealing (combat.rk:219-264) -------------------------------------------

    # combat.rk:219 radar_equipped
    def radar_equipped(self) -> bool:
        months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun")
        months += ("Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
        return self.year > 1943 or (self.year == 1943 and months.index(self.month) >= 9)

    # combat.rk:19 [14.13] modifiers revealed_count
    def revealed_count(self, sub: Piece) -> int:
        total = sub.tactical
        if sub.posture == "cautious":
            total -= 1
        if sub.posture == "aggressive":
            total += 1
        return total

    # combat.rk:222 reveal_candidates
    def reveal_candidates(
        self, sub: Piece, reattack: bool, besides: Piece | None = None
    ) -> list[Piece]:
        hidden = [
            u
            for u in self.display
            if not u.revealed
            and not u.sunk
            and self.adjacent_or_same(u.column, sub.column)
            and u is not besides
        ]
        if reattack and any(u.flag == "Rising Sun" for u in hidden):  # :225 [14.4 A]
            return [u for u in hidden if u.flag == "Rising Sun"]
        return hidden

    # combat.rk:229 [14.13] reveal_units
    def reveal_units(self, sub: Piece, reattack: bool = False) -> None:
        wanted = self.revealed_count(sub)
        for _ in range(1, wanted + 1):  # range(1, wanted): both ends included
            candidates = self.reveal_candidates(sub, reattack)
            if candidates and not self.end_combat:
                to_reveal = candidates[0]  # :235 default first(candidates)
                self.reveal(sub, to_reveal)
                # :242-249 [14.13] Radar: "unflip" defaults to false (:244): the condition
                # reads the state and changes nothing, so under the defaults nothing happens

    # combat.rk:251 [14.13] reveal
    def reveal(self, sub: Piece, u: Piece, targeting: bool = False) -> None:
        u.revealed = True
        if u.event:  # :254
            raise NotImplementedError("a Combat Event [19.2]: not reachable from [14.15]")
        elif u.diligent:  # :261
            raise NotImplementedError("a Diligent Escort [14.13]: not reachable from [14.15]")
        elif u.aircraft:  # :263
            self.aircraft_revealed(sub, u)

    # combat.rk:279 [7.21] aircraft_revealed
    def aircraft_revealed(self, sub: Piece, u: Piece) -> None:
        weather = self.weather_of(sub)
        # :281 a typhoon returns it to the cup; :284-285 a tropical storm on 0-7
        if weather == "typhoon" or (weather == "tropical_storm" and self.d10() <= 7):
            self.return_to_cup(u)

    # combat.rk:266 [14.8] return_to_cup (put_in_cup: war_mix.rk:80, the cups)
    def return_to_cup(self, u: Piece) -> None:
        raise NotImplementedError("a piece back to its cup: not reachable from [14.15]")

    # ---- [14.14] TDC markers (combat.rk:359-379, 617-630) ---------------------------------

    # combat.rk:359 place_tdcs
    def place_tdcs(self, sub: Piece) -> None:
        eligible = [
            u
            for u in self.display
            if not u.sunk
            and u.tdc is None
            and self.adjacent_or_same(u.column, sub.column)
            and not (u.revealed and (u.aircraft or u.event))
        ]
        for _ in range(1, sub.tactical + 1):  # :361
            open_ = [u for u in eligible if u.tdc is None]
            if open_ and self.tdc_pool:
                target = self.best_target(open_)  # :364 default best_target(open)
                target.tdc = self.draw(self.tdc_pool)  # :365 draw from tdc_pool
        if sub.posture == "cautious":  # :366 [14.12]
            marked = [u for u in self.display if u.tdc is not None]
            if marked:
                self.best_target(marked).unmodified_tdc = True  # :369 default best_target

    # combat.rk:374 [14.15] best_target
    def best_target(self, units: list[Piece]) -> Piece:
        allowed = [u for u in units if not (u.revealed and u.hospital)]
        known = [u for u in allowed if u.revealed]
        pool = known if known else allowed if allowed else units
        most = max(u.tonnage for u in pool)
        return next(u for u in pool if u.tonnage == most)

    # combat.rk:617 [14.4] remove_tdcs
    def remove_tdcs(self) -> None:
        for u in self.display:
            if u.tdc is not None:
                self.take_tdc(u)
                u.points = 0
                u.unmodified_tdc = False

    # combat.rk:626 [14.8] take_tdc
    def take_tdc(self, u: Piece) -> None:
        if u.tdc is not None:
            self.tdc_pool = [*self.tdc_pool, u.tdc]
            u.tdc = None
            u.unmodified_tdc = False

    # ---- [14.15] allocation (combat.rk:187-190, 383-455) ----------------------------------

    # combat.rk:187 attack_points
    def attack_points(self, sub: Piece) -> int:
        if self.halve_attack:  # [19.21 #2] round_down(sub.attack / 2)
            return sub.attack // 2
        return sub.attack

    # combat.rk:383 shot
    def shot(self, sub: Piece, u: Piece, points: int) -> int:
        return self.attack_value(sub, points, self.weather_of(sub)) - self.target_value(
            sub, u, sub.posture, sub.reattacks > 0
        )

    # combat.rk:386 best_shot
    def best_shot(self, sub: Piece, targets: list[Piece], points: int) -> Piece | None:
        fair = [u for u in targets if not (u.revealed and u.hospital)]
        pool = fair if fair else targets
        if not pool:
            return None
        best = max(self.shot(sub, u, points) * 100 + u.tonnage for u in pool)
        return next(u for u in pool if self.shot(sub, u, points) * 100 + u.tonnage == best)

    # combat.rk:410 [14.15] allocate
    def allocate(self, sub: Piece) -> None:
        targets = [u for u in self.display if u.tdc is not None and not u.sunk]
        points = self.attack_points(sub)
        remaining = points
        for u in targets:
            u.points = 0
        for u in targets:
            if remaining > 0:
                is_last = u is targets[-1]
                # :419 default: everything on the last target or on the best shot
                best = is_last or u is self.best_shot(sub, targets, points)
                give = remaining if best else 0
                u.points = give
                remaining -= give
        for u in targets:  # :423 targeted units are turned face up
            if u.points > 0 and not u.revealed:
                self.reveal(sub, u, True)
                if u.aircraft or u.event:  # :426
                    self.take_tdc(u)
                    u.points = 0
        if self.end_combat or sub.status != "active" or self.no_attack:  # :429
            return
        still = [  # :433
            u
            for u in self.display
            if u.tdc is not None and not u.sunk and u.revealed and not u.aircraft and not u.event
        ]
        if self.attack_points(sub) < points and still:  # :434 [19.21 #2]
            self.reallocate(sub, still)
        self.target_an_escort(sub)  # :438 [28.4]
        lost = self.attack_points(sub) - sum(u.points for u in self.display)  # :440
        if lost > 0 and still:
            self.best_target(still).points += lost

    # combat.rk:445 [19.21 #2] reallocate
    def reallocate(self, sub: Piece, targets: list[Piece]) -> None:
        points = self.attack_points(sub)
        remaining = points
        for u in self.display:
            u.points = 0
        for u in targets:
            if remaining > 0:
                is_last = u is targets[-1]
                best = is_last or u is self.best_shot(sub, targets, points)  # :453 default
                give = remaining if best else 0
                u.points = give
                remaining -= give

    # combat.rk:398 [28.4] target_an_escort
    def target_an_escort(self, sub: Piece) -> None:
        escorts = [
            u
            for u in self.display
            if u.points > 0 and u.revealed and u.type in ("DD", "DE") and not u.diligent
        ]
        if not escorts or sub.reattacks > 0:
            return
        if (  # :402 [28.41]
            sub.spotted
            or any(u.revealed and (u.diligent or u.aircraft) for u in self.display)
            or self.counterattack_first
            or self.no_attack
        ):
            return
        if sub.wolfpack > 0 and any(s is not sub for s in self.have_attacked):  # :404
            return
        escorts[0].escort_targeted = True  # :406 default first(escorts)

    # ---- [14.16] resolving the attack (combat.rk:54-171) ----------------------------------

    # combat.rk:60 [24.54] asw_counts
    def asw_counts(self, u: Piece, sub: Piece) -> bool:
        if u.aircraft:
            return True
        if u.column == sub.column:
            return True
        if not self.adjacent_or_same(u.column, sub.column):
            return False
        return not any(
            s.column == u.column for s in self.combatants if s is not sub and s.status == "active"
        )

    # combat.rk:69 [14.16 B2] unit_asw
    @staticmethod
    def unit_asw(u: Piece, weather: str, gunnery: bool = False) -> int | Fraction:
        if u.damaged or u.sunk or u.event or u.no_tdc:
            return 0
        base = Fraction(1, 2) if gunnery and u.zed else u.asw  # :72 [19.21 #1]
        if weather == "typhoon" and not u.aircraft:  # :73 [7.21]
            return max(base - 1, 0)
        return base

    # combat.rk:77 [14.16 B2] revealed_asw: fractions rounded up [2.5]
    def revealed_asw(self, sub: Piece, ignore_escort: bool = False, gunnery: bool = False) -> int:
        weather = self.weather_of(sub)
        total = sum(
            self.unit_asw(u, weather, gunnery)
            for u in self.display
            if u.revealed and self.asw_counts(u, sub) and not (ignore_escort and u.escort_targeted)
        )
        return math.ceil(total)

    # combat.rk:86 [14.16 A] modifiers attack_value
    def attack_value(self, sub: Piece, points: int, weather: str = "clear") -> int:
        total = points + sub.skipper + self.torpedo
        if weather == "tropical_storm":
            total -= 1
        if weather == "typhoon":
            total -= 2
        return total

    # combat.rk:96 [14.16 B3] modifiers tdc_value
    def tdc_value(
        self,
        target: Piece,
        posture: str = "standard",
        reattack: bool = False,
        perfect: bool = False,
    ) -> int:
        total = 0
        if not perfect:
            total += target.tdc
        if perfect:  # [19.21 #5]
            total -= abs(target.tdc)
        if posture == "cautious" and not target.unmodified_tdc:
            total += 1
        if posture == "aggressive":
            total -= 1
        if reattack and target.tdc != -3:  # [14.4]
            total -= 1
        return total

    # combat.rk:103 [14.16 B] modifiers target_value
    def target_value(
        self, sub: Piece, target: Piece, posture: str = "standard", reattack: bool = False
    ) -> int:
        total = target.defense if target.revealed else 1
        total += self.revealed_asw(sub, target.escort_targeted)
        total += self.tdc_value(target, posture, reattack, self.perfect_setup)
        if target.column != sub.column:
            total += 1
        if target.damaged:
            total -= 1
        return total

    # combat.rk:110 [14.16 C] modifiers to_hit_drm
    def to_hit_drm(self, sub: Piece, target: Piece, posture: str = "standard") -> int:
        total = 0
        if posture == "aggressive":
            total -= 1
        if posture == "cautious" and not target.unmodified_tdc:
            total += 1
        if sub.wolfpack > 0:
            total -= 1
        return total

    # combat.rk:123 [14.16 D] table attack_results: rows 1-4, 5-9, 10-17, 18-25, 26-35, 36+;
    # on row k (0..5) a roll of k or less is No Effect, up to k+4 Damaged, then Sunk
    @staticmethod
    def attack_results(tonnage: int, roll: int) -> str:
        if tonnage < 1:
            raise RuntimeError(f"attack_results has no row for tonnage {tonnage}")
        row = 0
        for i, low in enumerate((1, 5, 10, 18, 26, 36)):
            if tonnage >= low:
                row = i
        if roll <= row:
            return "No Effect"
        if roll <= row + 4:
            return "Damaged"
        return "Sunk"

    # combat.rk:135 [14.16 D] hit_effect
    def hit_effect(self, sub: Piece, target: Piece, result: str) -> str:
        weather = self.weather_of(sub)
        if result == "Sunk" or (result == "Damaged" and (target.damaged or weather == "typhoon")):
            self.sink_unit(sub, target)
            return "sunk"
        if result == "Damaged":
            target.damaged = True
            return "damaged"
        return "no_effect"

    # combat.rk:145 [14.16 D] sink_unit
    def sink_unit(self, sub: Piece, target: Piece) -> None:
        target.sunk = True
        self.ships_sunk += 1
        sub.sank += 1  # [14.5]
        self.kills = [*self.kills, (sub.name, target)]  # [19.21 #6]
        if target.hospital:  # :150 [28.3]
            self.involuntary_rtb(sub)
            if sub.skipper > 0:
                sub.skipper = 0
                sub.skipper_name = None
            return
        self.tonnage_sunk += target.tonnage
        sub.sank_tonnage += target.tonnage  # [14.5]

    # combat.rk:160 [14.16] attack
    def attack(
        self, sub: Piece, target: Piece, posture: str = "standard", reattack: bool = False
    ) -> str:
        weather = self.weather_of(sub)
        attack_total = self.attack_value(sub, target.points, weather)  # :162 [14.16 A]
        target_total = self.target_value(sub, target, posture, reattack)  # :163 [14.16 B]
        difference = attack_total - target_total  # :164 [14.16 C]
        if difference < 0:  # :165 [14.17] automatic miss
            return "cannot_hit"
        to_hit = self.d10() + self.to_hit_drm(sub, target, posture)  # :168
        if to_hit > difference:
            return "miss"
        roll = self.d10() + self.torpedo  # :171 [14.16 D]
        return self.hit_effect(sub, target, self.attack_results(target.tonnage, roll))

    # combat.rk:174 [14.16] attack_round
    def attack_round(self, sub: Piece, reattack: bool = False) -> list[str]:
        targets = [u for u in self.display if u.points > 0 and not u.sunk]
        if not targets:
            return []
        if not all(u.points >= 0 for u in self.display):  # :178 [14.15]
            raise RuntimeError("attack points cannot be negative")
        if sum(u.points for u in self.display) != self.attack_points(sub):  # :179
            raise RuntimeError("the attack points allocated must add up to the attack value")
        if not all(u.tdc is not None for u in targets):  # :180
            raise RuntimeError("a target must be a unit with a TDC marker on it")
        self.have_attacked = [*self.have_attacked, sub]  # :181 [28.41 E]
        outcomes = []
        for target in targets:
            outcomes = [*outcomes, self.attack(sub, target, sub.posture, reattack)]
        return outcomes

    # combat.rk:542 [14.17] attack_possible
    def attack_possible(self, sub: Piece, reattack: bool) -> bool:
        return any(
            self.attack_value(sub, u.points, self.weather_of(sub))
            - self.target_value(sub, u, sub.posture, reattack)
            >= 0
            for u in self.display
            if u.points > 0 and not u.sunk
        )

    # ---- [14.2] the counterattack (combat.rk:459-536) -------------------------------------

    # combat.rk:462 [14.2 A2] red_boxes: count the red boxes of area_activity(area, wp)
    def red_boxes(self, area: str) -> int:
        if (area, self.war_period) not in RED_BOXES:
            raise NotImplementedError(f"{area}: not reachable from the [14.15] situation")
        return RED_BOXES[(area, self.war_period)]

    @staticmethod
    def shallow(area: str) -> bool:  # map.rk:109 area_features(area).shallow
        if area != "East China Sea":
            raise NotImplementedError(f"{area}: not reachable from the [14.15] situation")
        return False

    # combat.rk:465 [14.2 A] modifiers japanese_value
    def japanese_value(self, sub: Piece) -> int:
        total = self.revealed_asw(sub, False, self.gunnery)
        total += self.red_boxes(sub.area)
        total += GENERAL_ASW[self.war_period]
        total += self.asw_bonus
        return total

    # combat.rk:471 [14.2 B] modifiers submarine_value
    def submarine_value(self, sub: Piece) -> int:
        total = sub.defense + sub.skipper
        if self.shallow(sub.area):
            total -= 1
        return total

    # combat.rk:476 [14.2 C] modifiers counterattack_drm
    def counterattack_drm(self, sub: Piece, after_reattack: bool = False) -> int:
        total = sub.damage
        if after_reattack:
            total += 1
        if sub.spotted:
            total += 1
        if sub.posture == "cautious":
            total -= 1
        if sub.posture == "aggressive":
            total += 1
        return total

    # combat.rk:489 [14.2] table counterattack_table
    def counterattack_table(self, difference: int, roll: int) -> str:
        row = COUNTER_ROWS[0 if difference <= 0 else min((difference + 1) // 2, 4)]
        for result, high in zip(("No Effect", "Spotted", "Damaged"), row, strict=False):
            if roll <= high:
                return result
        if row[3] is None or roll <= row[3]:
            return "Damaged + RTB"
        return "Sunk"

    # combat.rk:514 [14.2] apply_counterattack
    def apply_counterattack(self, sub: Piece, result: str) -> None:
        if result == "Spotted":
            self.spot(sub)  # [23.0]
        elif result == "Damaged":
            self.damage_submarine(sub)  # [18.1]
        elif result == "Damaged + RTB":
            self.damage_submarine(sub)  # [18.1]
            self.involuntary_rtb(sub)  # [15.22]
        elif result == "Sunk":
            self.sub_sunk(sub)  # [18.1]

    # combat.rk:525 [14.2] counterattack
    def counterattack(self, sub: Piece, after_reattack: bool = False) -> str | None:
        if all(  # :528 all revealed units have a zero ASW value: no counterattack
            u.asw == 0 or u.damaged
            for u in self.display
            if u.revealed and not u.sunk and not u.event
        ) and not (self.gunnery and any(u.zed for u in self.display if u.revealed and not u.sunk)):
            return None
        japanese = self.japanese_value(sub)  # :531 [14.2 A]
        submarine = self.submarine_value(sub)  # :532 [14.2 B]
        difference = japanese - submarine  # :533 [14.2 C]
        roll = self.d10() + self.counterattack_drm(sub, after_reattack)  # :534
        result = self.counterattack_table(difference, roll)
        self.apply_counterattack(sub, result)
        return result

    # ---- damage.rk, movement.rk -----------------------------------------------------------

    # damage.rk:3 [18.1] sub_sunk
    def sub_sunk(self, sub: Piece) -> None:
        if sub.status != "active":
            return
        sub.status = "sunk"
        self.subs_lost += 1  # [18.12]
        sub.skipper = 0  # [25.2]
        sub.skipper_name = None

    # damage.rk:17 [18.1] damage_submarine
    def damage_submarine(self, sub: Piece) -> None:
        if sub.status != "active":
            return
        if sub.damage >= 2:  # [18.13] a third Damage marker
            self.sub_sunk(sub)
            return
        if sub.damage == 1 and self.d10() > sub.defense:  # [18.12] a second marker
            self.sub_sunk(sub)
            return
        sub.damage += 1

    # damage.rk:120 [23.0] spot
    def spot(self, sub: Piece) -> None:
        if sub.spotted:  # [23.1]
            return
        sub.spotted = True
        if sub.wolfpack > 0:  # [24.6]
            raise NotImplementedError("a Wolfpack [24.6]: not reachable from [14.15]")

    # movement.rk:187 [15.22] involuntary_rtb
    @staticmethod
    def involuntary_rtb(sub: Piece) -> None:
        if sub.status != "active":  # a boat the same result sank takes no marker
            return
        sub.rtb = "involuntary"
        sub.side = "transit"
        sub.section = "done"
        sub.destination = None

    # ---- the end state ---------------------------------------------------------------------

    def end_state(self, sub: Piece) -> dict[str, Any]:
        return {
            "sub": {f: getattr(sub, f) for f in SUB_FIELDS},
            "display": [{f: getattr(u, f) for f in UNIT_DEFAULTS} for u in self.display],
            "ships_sunk": self.ships_sunk,
            "tonnage_sunk": self.tonnage_sunk,
            "subs_lost": self.subs_lost,
            "tdc_pool": list(self.tdc_pool),
            "end_combat": self.end_combat,
            "kills": [(by, ship.name) for by, ship in self.kills],
            "have_attacked": [s.name for s in self.have_attacked],
            "combatants": [s.name for s in self.combatants],
            **{flag: getattr(self, flag) for flag in ROUND_FLAGS},
        }


ROUND_FLAGS = (
    "event_this_round",
    "perfect_setup",
    "halve_attack",
    "circular_run_pending",
    "no_attack",
    "no_counterattack",
    "counterattack_first",
    "extra_attack",
    "asw_bonus",
    "gunnery",
    "deadly_division",
)


def run_reference(seed: int, situation: dict[str, Any] | None = None) -> dict[str, Any]:
    """The end state of the hand-written combat round on one seed."""
    game = Game(situation if situation is not None else load_situation(), random.Random(seed))
    sub = game.args["sub"]
    game.combat_round(sub, game.args["reattack"], game.args["placed"], game.args["pinned"])
    return game.end_state(sub)


# ---- rulekit: the same run and the same end state ---------------------------------------


def _plain(value: Any) -> Any:
    """A rulekit value as the reference writes it: enums by member, pieces by name."""
    from rulekit.engine.values import EnumValue, MarkerValue

    if isinstance(value, EnumValue):
        return value.member
    if isinstance(value, MarkerValue):
        return value.name
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def run_rulekit(
    book: Any, seed: int, traced: bool = True, situation: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The end state rulekit reaches: combat_round called as `resolve --given` binds it."""
    interp, args = _rulekit_ready(book, seed, traced, situation)
    interp.call("combat_round", args)
    return _rulekit_end_state(interp, args["sub"])


def _rulekit_ready(
    book: Any, seed: int, traced: bool, situation: dict[str, Any] | None
) -> tuple[Any, dict[str, Any]]:
    from rulekit.book.inputs import find_target
    from rulekit.engine.dice import SeededDice
    from rulekit.engine.interpreter import Interpreter
    from rulekit.engine.policy import DefaultPolicy
    from rulekit.engine.session import bind_inputs

    given: Any = str(SPEARFISH) if situation is None else situation
    target = find_target(book, "combat_round", ("procedure",))
    interp = Interpreter(book, SeededDice(seed), DefaultPolicy())
    args = bind_inputs(book, target, interp, given, [])
    interp.mute(not traced)
    return interp, args


def _rulekit_end_state(interp: Any, sub: Any) -> dict[str, Any]:
    values = interp.state.values
    return {
        "sub": {f: _plain(sub.attrs[f]) for f in SUB_FIELDS},
        "display": [{f: _plain(u.attrs[f]) for f in UNIT_DEFAULTS} for u in values["display"]],
        "ships_sunk": values["ships_sunk"],
        "tonnage_sunk": values["tonnage_sunk"],
        "subs_lost": values["subs_lost"],
        "tdc_pool": list(values["tdc_pool"]),
        "end_combat": values["end_combat"],
        "kills": [(k.get("by"), k.get("ship").attrs["name"]) for k in values["kills"]],
        "have_attacked": [s.attrs["name"] for s in values["have_attacked"]],
        "combatants": [s.attrs["name"] for s in values["combatants"]],
        **{flag: values[flag] for flag in ROUND_FLAGS},
    }


# ---- variants of the situation: paths the [14.15] example alone does not take -------------


def variants() -> dict[str, dict[str, Any]]:
    """The [14.15] situation, and changed copies of it (each a --given dict)."""
    base = load_situation()
    out = {"[14.15]": base}

    def changed(name: str, edit: Callable[[dict[str, Any]], None]) -> None:
        situation = copy.deepcopy(base)
        edit(situation)
        out[name] = situation

    changed("cautious", lambda s: s["sub"].update(posture="cautious"))
    changed("aggressive", lambda s: s["sub"].update(posture="aggressive"))
    changed("damaged, spotted", lambda s: s["sub"].update(damage=1, spotted=True))
    changed("twice damaged, no skipper", lambda s: s["sub"].update(damage=2, skipper=0))

    def hidden(s: dict[str, Any]) -> None:
        # face down pieces, TDC markers to draw; the destroyer may be targeted [28.4]
        for u in s["display"][1:3]:
            u["revealed"] = False
            u.pop("tdc", None)
            u.pop("points", None)
        s["display"][3].update(type="DE", defense=1, tonnage=3)
        s["tdc_pool"] = [-3, -2, -1, 0, 1, 2, 3]
        s["sub"]["tactical"] = 2

    changed("face down, TDCs drawn", hidden)

    def reattack(s: dict[str, Any]) -> None:
        hidden(s)
        s["reattack"] = True
        s["display"][2]["flag"] = "Rising Sun"
        s["sub"].update(reattacks=1, posture="cautious")

    changed("re-attack, cautious", reattack)
    changed(
        "tropical storm",
        lambda s: s.update(storms=[dict(area="East China Sea", level="Tropical Storm")]),
    )
    changed("typhoon", lambda s: s.update(storms=[dict(area="East China Sea", level="Typhoon-1")]))
    return out


# ---- measured side by side ----------------------------------------------------------------


def bench_combat_reference(book: Any, n: int) -> tuple[float, float, float]:
    """Seconds per combat_round call over n seeds: rulekit untraced, rulekit traced, and the
    hand-written reference, each given its inputs ready-made (as bench.py's
    bench_combat_round times the call alone)."""
    situation = load_situation()
    times = []
    for traced in (False, True):
        ready = [_rulekit_ready(book, seed, traced, situation) for seed in range(n)]
        start = time.perf_counter()
        for interp, args in ready:
            interp.call("combat_round", args)
        times.append((time.perf_counter() - start) / n)
    games = [Game(situation, random.Random(seed)) for seed in range(n)]
    start = time.perf_counter()
    for game in games:
        sub = game.args["sub"]
        game.combat_round(sub, game.args["reattack"], game.args["placed"], game.args["pinned"])
    times.append((time.perf_counter() - start) / n)
    return times[0], times[1], times[2]


def load_book() -> Any:
    sys.path.insert(0, str(ROOT))
    from rulekit.book.checker import check
    from rulekit.book.loader import load_rulebook

    return check(load_rulebook(str(ROOT / "rulebooks" / "silent_war")))


def check_seeds(book: Any, seeds: int) -> dict[str, int]:
    """Seeds on which the reference and rulekit (traced and not) end in the same state."""
    matched = {}
    for name, situation in variants().items():
        count = 0
        for seed in range(seeds):
            expected = run_reference(seed, situation)
            for traced in (True, False):
                got = run_rulekit(book, seed, traced, situation)
                if got != expected:
                    raise SystemExit(f"{name}, seed {seed} (traced={traced}): {got} != {expected}")
            count += 1
        matched[name] = count
    return matched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=0, help="check this many seeds")
    parser.add_argument("--bench", action="store_true", help="seconds per call, side by side")
    parser.add_argument("--calls", type=int, default=300, help="seeds per bench round")
    parser.add_argument("--rounds", type=int, default=9, help="bench rounds (median taken)")
    opts = parser.parse_args()
    book = load_book()
    if opts.seeds:
        for name, count in check_seeds(book, opts.seeds).items():
            print(f"{name}: {count} seeds, the same end state")
    if opts.bench:
        import statistics

        bench_combat_reference(book, 20)  # code generated on first use
        rounds = [bench_combat_reference(book, opts.calls) for _ in range(opts.rounds)]
        untraced, traced, reference = (statistics.median(r) for r in zip(*rounds, strict=True))
        print(f"one combat round ([14.15] Spearfish), median of {opts.rounds} x {opts.calls}")
        print(f"{'':26}{'per call':>12}{'/ reference':>14}")
        for label, value in (
            ("rulekit untraced", untraced),
            ("rulekit traced", traced),
            ("hand-written reference", reference),
        ):
            print(f"{label:26}{value * 1e6:>9.1f} µs{value / reference:>13.1f}x")


if __name__ == "__main__":
    main()
