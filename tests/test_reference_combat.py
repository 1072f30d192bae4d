"""The hand-written combat round (bench/reference_combat.py) and the rulebook's combat_round
end in the same state, seed by seed: the benchmark's ratio compares the same procedure."""

from __future__ import annotations

from collections import Counter
from types import ModuleType

import pytest
from conftest import bench_module

from rulekit.book.checker import Checked
from rulekit.engine.session import resolve

SEEDS = 300  # of the [14.15] situation itself
VARIANT_SEEDS = 100  # of each changed copy of it


def _reference() -> ModuleType:
    return bench_module("reference_combat")


def test_the_spearfish_round_ends_alike_on_300_seeds(silent_war: Checked) -> None:
    ref = _reference()
    ends = Counter()
    for seed in range(SEEDS):
        expected = ref.run_reference(seed)
        assert ref.run_rulekit(silent_war, seed, traced=True) == expected, seed
        assert ref.run_rulekit(silent_war, seed, traced=False) == expected, seed
        sub = expected["sub"]
        ends[(expected["ships_sunk"], expected["display"][0]["damaged"], sub["spotted"])] += 1
    # the seeds reach every way the round can end: miss or no effect, damaged, sunk; then
    # the counterattack's No Effect or Spotted
    assert len(ends) == 6


def test_run_rulekit_is_resolve_given_the_situation(silent_war: Checked) -> None:
    ref = _reference()
    for seed in range(10):
        out = resolve(silent_war, "combat_round", given=str(ref.SPEARFISH), seed=seed)
        ended = ref._rulekit_end_state(out.interpreter, out.args["sub"])
        assert ended == ref.run_rulekit(silent_war, seed) == ref.run_reference(seed)


@pytest.mark.parametrize("name", [n for n in _reference().variants() if n != "[14.15]"])
def test_changed_situations_end_alike(silent_war: Checked, name: str) -> None:
    ref = _reference()
    situation = ref.variants()[name]
    ends = set()
    for seed in range(VARIANT_SEEDS):
        expected = ref.run_reference(seed, situation)
        for traced in (True, False):
            assert ref.run_rulekit(silent_war, seed, traced, situation) == expected, seed
        ends.add(repr(expected))
    assert len(ends) > 2


def test_what_the_situation_cannot_reach_is_refused() -> None:
    ref = _reference()
    situation = ref.load_situation()
    situation["display"][2].update(revealed=False, event=True)
    with pytest.raises(NotImplementedError, match="Combat Event"):
        ref.run_reference(1, situation)
