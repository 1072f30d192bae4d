"""Issue 37 §4: the Gato Leader and Attack Sub procedures that
``test_situations.py::test_every_procedure_agrees_with_the_paths_it_can_enumerate`` compares
by the engine's two methods (situations, paths) are checked here against an oracle that does
not use the engine: the deck each draws from, written out in plain Python from the rules and
the rulebook's (provisional) deck lists, and a card drawn at random from it ("draw the top
card" of a shuffled deck). Both methods must give exactly the oracle's distribution."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from rulekit.analysis.prob import ask, exact
from rulekit.book.checker import Checked


def drawn(deck: list[Any]) -> dict[Any, Fraction]:
    """One card drawn at random from ``deck``: each value's share of its cards."""
    counts = Counter(deck)
    return {card: Fraction(n, len(deck)) for card, n in counts.items()}


def by_engine(checked: Checked, procedure: str, method: str) -> dict[Any, Fraction]:
    dist = exact(checked, ask(checked, procedure), 5_000, method=method)
    # an enum member by its name, as the oracle writes it
    return {getattr(o.value, "member", o.value): o.p for o in dist.outcomes}


# ---- Gato Leader ------------------------------------------------------------------------

# §Set-Up Card Decks: "remove from the Convoy deck any Convoy cards listed" on the Campaign
# Sheet: Holding the Line (the campaign a game starts in) lists 47 and 48.
CONVOY_DECK = [37, 42, 47, 48, 49]  # cards.rk convoy_deck_cards (the cards the rules name)
HOLDING_THE_LINE_REMOVES = {47, 48}
# §Event Cards, cards.rk event_deck_copies (provisional: the deck is not printed)
EVENT_COPIES = {
    "Clear Weather": 8,
    "Ultra Intercept": 3,
    "Rough Weather": 4,
    "Enemy Aircraft": 4,
    "Target of Opportunity": 2,
    "Minefield": 3,
}
MERCHANTS = ["Tatibana Maru", "Tyoko Maru", "Syoei Maru", "Hoten Maru", "Nanrei Maru"]
MERCHANTS += ["Tatuwa Maru"]

GATO_DECKS: dict[str, list[Any]] = {
    "draw_convoy_card": [c for c in CONVOY_DECK if c not in HOLDING_THE_LINE_REMOVES],
    "draw_event_card": [e for e, n in EVENT_COPIES.items() for _ in range(n)],
    "draw_merchant_card": MERCHANTS,
    "draw_escort_card": ["Nomi", "CH-30", "CH-14"],
    "draw_fleet_escort_card": ["Fleet Escort 1", "Fleet Escort 2", "Fleet Escort 3"],
    "draw_naval_card": ["Aoba", "Jintsu"],
}


@pytest.mark.parametrize("method", ["situations", "paths"])
@pytest.mark.parametrize("procedure", sorted(GATO_DECKS))
def test_gato_leader_draws_match_the_plain_python_deck(
    gato: Checked, procedure: str, method: str
) -> None:
    assert by_engine(gato, procedure, method) == drawn(GATO_DECKS[procedure])


def test_the_event_deck_by_hand() -> None:
    # the oracle's own check, by hand: 24 cards, 8 of them Clear Weather
    assert drawn(GATO_DECKS["draw_event_card"])["Clear Weather"] == Fraction(1, 3)
    assert drawn(GATO_DECKS["draw_event_card"])["Target of Opportunity"] == Fraction(1, 12)


# ---- Attack Sub -------------------------------------------------------------------------

# [6.5] "draw another card from the Draw pile and apply the Hit result listed on the bottom
# of the card". The deck (cards.rk rn_card, provisional) is 44 cards in four runs of eleven,
# RN 0-9 then X, and each run carries the same Hit results by RN:
HIT_BY_RN = [
    "DUD",  # 0
    "ATTACK",  # 1
    "SENSOR",  # 2
    "ATTACK",  # 3
    "SENSOR",  # 4
    "ATTACK x2",  # 5
    "SENSOR x2",  # 6
    "ATTACK + SENSOR",  # 7
    "DUD",  # 8
    "SUNK",  # 9
    "ATTACK",  # X
]
DECK_SIZE = 44  # cards.rk deck_size (provisional)


@pytest.mark.parametrize("method", ["situations", "paths"])
def test_attack_sub_draw_from_deck_is_any_card(sub: Checked, method: str) -> None:
    assert by_engine(sub, "draw_from_deck", method) == drawn(list(range(1, DECK_SIZE + 1)))


@pytest.mark.parametrize("method", ["situations", "paths"])
def test_attack_sub_hit_results_match_the_plain_python_deck(sub: Checked, method: str) -> None:
    hits = [HIT_BY_RN[(card - 1) % 11] for card in range(1, DECK_SIZE + 1)]
    assert by_engine(sub, "draw_hit", method) == drawn(hits)
    assert drawn(hits)["DUD"] == Fraction(2, 11)  # the oracle by hand: 8 of 44 cards
