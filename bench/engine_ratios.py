"""The generated code against the hand-written references, side by side, robust to a busy
machine: many short rounds of bench.py's own measurements, the best of each kept.

    python bench/engine_ratios.py            # about a minute on a quiet machine
    python bench/engine_ratios.py --quick    # tiny settings

Measured, never asserted: [6.0] Torpedo Improvement Phase, [A2] AA attack (a look-up with
its roll and five modifiers) and one Silent War combat round (the call alone), untraced and
traced, each as a ratio to its hand-written reference; then short campaigns played
untraced, in games per CPU second of one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))  # this tree's rulekit, not an installed one

from reference_aa import bench_aa  # noqa: E402
from reference_combat import bench_combat_reference  # noqa: E402

import bench as b  # noqa: E402
from rulekit.play.runner import new_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny settings")
    quick = parser.parse_args().quick
    rounds, calls, combats, seeds = (3, 20, 2, 1) if quick else (60, 150, 40, 6)
    book = b.load_and_check(b.SW)
    wolves = b.load_and_check(ROOT / "rulebooks" / "steel_wolves_like")
    for traced in (False, True):
        label = "traced" if traced else "untraced"
        b.bench_reference(book, 50, traced)  # code generated on first use
        bench_aa(wolves, 50, traced)
        phase = [b.bench_reference(book, calls, traced) for _ in range(rounds)]
        aa = [bench_aa(wolves, calls, traced) for _ in range(rounds)]
        for what, runs in (("[6.0]", phase), ("[A2]", aa)):
            ours, ref = min(r[0] for r in runs), min(r[1] for r in runs)
            shown = f"{ours * 1e6:.2f} µs, reference {ref * 1e6:.2f} µs"
            print(f"{what} {label}: {shown} = {ours / ref:.1f}x")
    runs3 = [bench_combat_reference(book, 3) for _ in range(combats)]
    untraced, traced_call, ref = (min(r[k] for r in runs3) for k in range(3))
    for label, ours in (("untraced", untraced), ("traced", traced_call)):
        shown = f"{ours * 1e6:.0f} µs, reference {ref * 1e6:.0f} µs"
        print(f"combat round {label}: {shown} = {ours / ref:.1f}x")

    def short(seed: int) -> None:
        game = new_game(book, "short_campaign", seed)
        game.interp.mute()
        game.play()

    short(0)
    cpu = time.process_time()
    for seed in range(1, seeds + 1):
        short(seed)
    rate = seeds / (time.process_time() - cpu)
    print(f"short campaigns untraced: {rate:.2f} games per CPU second ({seeds} seeds)")


if __name__ == "__main__":
    main()
