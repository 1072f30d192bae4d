"""``rulekit run --dice``: the natural die results of a whole game, forced in order."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from rulekit.book.inputs import parse_dice
from rulekit.cli.show import err
from rulekit.engine.dice import ForcedDice


def force_dice(game: Any, text: str | None, seeded: bool) -> None:
    """Throws of the turns come from ``text`` first; the game's seeded dice take over after
    them only when a seed (or a save) was given, as for ``resolve``. The scenario's set-up
    has already run on the seed, as ``replay`` does it."""
    if text is not None:
        game.interp.use_dice(ForcedDice(parse_dice(text), game.interp.dice if seeded else None))


def release_dice(game: Any) -> None:
    """Before a save: the seeded dice again (a save holds their position), and a word about
    forced values the game did not use."""
    dice = game.interp.dice
    if not isinstance(dice, ForcedDice):
        return
    unused = len(dice.values) - dice.used
    if unused:
        err.print(Text(f"note: --dice: {unused} value(s) not used"))
    if dice.then is not None:
        game.interp.use_dice(dice.then)
