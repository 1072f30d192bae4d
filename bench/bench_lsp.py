"""How long `rulekit lsp` takes from an edit to its diagnostics, on Silent War, over stdio.

An editor (pygls's client, as tests/test_lsp.py uses it) opens a file of the rulebook, then
types: each edit changes one line (of a procedure, of a table row, or adds a line, which
moves every declaration below it) and is timed from the moment it is sent to the moment
the server publishes diagnostics for that version of the file. The goal (issue 34) is
0.3 s. The server waits DEBOUNCE seconds after an edit before it checks (rulekit.lsp.server);
that pause is inside the times shown.

    python bench/bench_lsp.py [--edits 30] [--file combat.rk]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.lsp_client import Editor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--file", default="combat.rk")
    args = parser.parse_args()
    path = ROOT / "rulebooks" / "silent_war" / args.file
    editor = Editor(cwd=ROOT)
    try:
        started = time.perf_counter()
        doc = editor.open(path)
        print(f"open (server start, parse, check): {time.perf_counter() - started:.2f} s")
        text = editor.texts[doc]
        lines = text.split("\n")
        body = [i for i, line in enumerate(lines) if line.startswith("    ") and "#" not in line]
        rows = [i for i, line in enumerate(lines) if "|" in line and line.startswith("    ")]
        kinds = {"procedure or table line": [], "a line added": [], "error typed": []}
        for n in range(args.edits):
            pool = rows if n % 2 and rows else body
            line = pool[(n * 7919) % len(pool)]
            if n % 3 == 0:
                kind = "a line added"
                edited = [*lines[: line + 1], "", *lines[line + 1 :]]
            elif n % 3 == 1:
                kind = "procedure or table line"
                edited = [*lines[:line], lines[line] + "  ", *lines[line + 1 :]]
            else:
                kind = "error typed"
                edited = [*lines[:line], lines[line] + " +", *lines[line + 1 :]]
            sent = time.perf_counter()
            version = editor.change(doc, "\n".join(edited))
            editor.wait_version(doc, version)
            kinds[kind].append(time.perf_counter() - sent)
            version = editor.change(doc, text)  # and back
            editor.wait_version(doc, version)
        every = [t for times in kinds.values() for t in times]
        for kind, times in kinds.items():
            if times:
                print(
                    f"{kind:24} {len(times):3} edits: median {statistics.median(times):.3f} s, "
                    f"max {max(times):.3f} s"
                )
        print(
            f"{'all':24} {len(every):3} edits: median {statistics.median(every):.3f} s, "
            f"max {max(every):.3f} s, within 0.3 s: {sum(t <= 0.3 for t in every)}/{len(every)}"
        )
    finally:
        editor.close()


if __name__ == "__main__":
    main()
