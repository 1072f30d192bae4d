"""The generated engine against the closures on many seeds of every bundled scenario.

    python bench/differential.py             # 200 seeds of each scenario (several minutes)
    python bench/differential.py --seeds 20  # fewer
    python bench/differential.py --skip full_campaign  # without Silent War's 44-month war

Each game is played twice, procedures as closures and as generated Python source
(rulekit.engine.codegen); the JSON traces (`rulekit run --trace`) must be byte-identical.
Prints, per scenario, the games compared, the differing seeds and the time of each engine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulekit.book.checker import load  # noqa: E402
from rulekit.play.differential import played  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument(
        "--skip", action="append", default=[], metavar="SCENARIO", help="leave this one out"
    )
    opts = parser.parse_args()
    failed = False
    for folder in sorted((ROOT / "rulebooks").iterdir()):
        if not (folder / "scenarios").is_dir():
            continue
        checked = load(str(folder))
        for path in sorted((folder / "scenarios").glob("*.toml")):
            if path.stem in opts.skip:
                continue
            differ, times = [], [0.0, 0.0]
            for seed in range(opts.seeds):
                traces = []
                for k, generated in enumerate((False, True)):
                    start = time.perf_counter()
                    traces.append(played(checked, path.stem, seed, generated))
                    times[k] += time.perf_counter() - start
                if traces[0] != traces[1]:
                    differ.append(seed)
            failed = failed or bool(differ)
            print(
                f"{folder.name}/{path.stem}: {opts.seeds} seeds, "
                f"{'identical' if not differ else f'DIFFER on seeds {differ}'}; "
                f"closures {times[0]:.1f} s, generated {times[1]:.1f} s",
                flush=True,
            )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
