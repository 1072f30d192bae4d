"""The pictures in docs/, made again by the commands that made them, and compared.

    python tools/docs_pictures.py            # write them into docs/ (and their alt texts)
    python tools/docs_pictures.py --check    # make them in a temporary folder; exit 1 if
                                             # one differs from docs/ (or an alt text is stale)

``prob-counterattack.svg`` (``rulekit prob ... --plot``: matplotlib, fixed ids, no date),
``simulate-patrol.png`` (``rulekit simulate ... --plot``) and ``render-card.png`` (``rulekit
render`` shot by headless Chromium; skipped when there is no ``chromium``). The prob plot's
alt text in docs/analysis.md states its percentages; it is written from the same numbers.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULEKIT = [sys.executable, "-m", "rulekit"]
PROB = ["prob", "rulebooks/silent_war", "counterattack_table", "--at", "difference=7"]
SIMULATE = [
    "simulate", "rulebooks/silent_war", "--scenario", "patrol", "--runs", "200", "--seed", "1",
    "--workers", "2",
]  # fmt: skip
ALT = re.compile(
    r"!\[Counterattack Table, difference 7 or more: [^\]]*\]\(prob-counterattack.svg\)"
)


def _run(args: list[str]) -> str:
    done = subprocess.run(
        [*RULEKIT, *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=600
    )
    if done.returncode != 0:
        raise SystemExit(f"`rulekit {' '.join(args)}` failed:\n{done.stderr}")
    return done.stdout


def prob_alt_text() -> str:
    """The alt text of the prob plot, from the distribution it draws."""
    data = json.loads(_run([*PROB, "--json"]))
    parts = [f"{o['value']} {float(Fraction(o['p']) * 100):g}%" for o in data["outcomes"]]
    return (
        "![Counterattack Table, difference 7 or more: "
        + ", ".join(parts)
        + " (provisional values)](prob-counterattack.svg)"
    )


def make(folder: Path) -> list[str]:
    """Draw every picture into ``folder``; the names of those drawn."""
    folder.mkdir(parents=True, exist_ok=True)
    _run([*PROB, "--plot", str(folder / "prob-counterattack.svg")])
    _run([*SIMULATE, "--plot", str(folder / "simulate-patrol.png")])
    made = ["prob-counterattack.svg", "simulate-patrol.png"]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        with tempfile.TemporaryDirectory() as cards:
            _run(["render", "rulebooks/silent_war", "--table", "counterattack_table", "-o", cards])
            subprocess.run(
                [
                    chromium, "--headless=new", "--hide-scrollbars", "--no-sandbox",
                    "--window-size=1000,540", f"--screenshot={folder / 'render-card.png'}",
                    f"file://{cards}/Silent_War-2.1.html",
                ],
                capture_output=True, check=True, timeout=120,
            )  # fmt: skip
        made.append("render-card.png")
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    analysis = DOCS / "analysis.md"
    alt = prob_alt_text()
    if not args.check:
        made = make(DOCS)
        analysis.write_text(ALT.sub(lambda _: alt, analysis.read_text(encoding="utf-8")))
        print("made again in docs/: " + ", ".join(made))
        return 0
    stale = [] if alt in analysis.read_text(encoding="utf-8") else ["the prob plot's alt text"]
    with tempfile.TemporaryDirectory() as folder:
        for name in make(Path(folder)):
            if (Path(folder) / name).read_bytes() != (DOCS / name).read_bytes():
                stale.append(name)
    for what in stale:
        print(f"stale: {what} (python tools/docs_pictures.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
