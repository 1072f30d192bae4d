"""CPU seconds of one Silent War full campaign played untraced (as simulate plays it), seed 2.

    python bench/full_campaign_cpu.py

Measured, never asserted (issue 31's goal: 2 s).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rulekit.book.checker import load
from rulekit.play.runner import new_game


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    book = load(str(root / "rulebooks" / "silent_war"))
    cpu = time.process_time()
    game = new_game(book, "full_campaign", 2)
    game.interp.mute()
    game.play()
    spent = time.process_time() - cpu
    print(f"full campaign untraced, seed 2: {spent:.1f} s CPU, {game.turn} turns, {game.ended}")


if __name__ == "__main__":
    main()
