"""Fuzz the command line: mutated rulebooks, command lines, saves and traces, in-process.

Every input must end with exit code 0, 1, 2 or 3 (3: diff and fmt --check found changes) and
no uncaught exception. Prints how many inputs were run, how many raised an uncaught
exception (the goal: 0), the slowest input's time, and the first few failures.

    python bench/fuzz.py                  # 100,000 inputs
    python bench/fuzz.py --count 2000 --seed 7

One input in five is a save or a trace: a game of GAME (a rulebook with a sequence of play)
is saved and traced once, then the save (TOML) or the trace (JSON lines) is mutated field
by field (huge numbers, wrong types, deep nesting, unicode, paths outside the rulebook,
fields dropped, lines cut) and given to `run --resume` or `replay`. The slowest input and
the peak memory (the process's, ru_maxrss) are reported.

The parse cache is switched off (RULEKIT_CACHE=off): mutated files would fill it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

from click.testing import CliRunner

from rulekit.cli.main import main

SEEDS = [
    """rulebook "Fuzz" scenario "s"
dice d6 = 1..6
dice d10 = 0..9
enum posture = cautious standard bold
track score 0..20 = 0 [1.0]
state year: int = 1942 [1.0]
const bonus = 2 [1.0]
modifiers drm(p: posture) [2.0]
    +1 if p = bold
    -1 if p = cautious
table hits [3.0]: roll 2d6 -> int
    ..4 | 0
    5-8 | 1
    9.. | 2
table t [3.1]: posture x roll d10 -> text
    roll     | 0-4 | 5-9
    cautious | a   | d
    standard | b   | e
    bold     | c   | f
procedure p(x: int = 3) [4.0]
    choose stance from posture default standard [4.1]
    total = 0
    for each i in range(1, x):
        r = roll d6
        total = total + r
    while total > 10:
        total = total - bonus
    h = hits(roll: roll 2d6 + drm(stance))
    if total > 5 and stance != cautious and h > 0:
        score = score + 1
    elif not (total = 0):
        note "low {total}"
    return [s * 2 for s in range(1, total) if odd(s)]
procedure q [4.2]
    return count(p(2)) + count(p(1))
""",
    """rulebook "Small"
dice d6 = 1..6
table a [1.0]: roll d6 -> int
    1-3 | 1
    4-6 | 2
procedure p [1.0]
    r = roll d6
    return a() + r.natural
""",
]

SCENARIO = """[scenario]
title = "s"
turns = 2
"""

# Pieces a mutation may insert: the language's words and marks, and known troublemakers.
PIECES = [
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    "|",
    "..",
    "=",
    "+",
    "-",
    "*",
    "/",
    "\n",
    "    ",
    "\t",
    "if ",
    "while ",
    "for each ",
    "return ",
    "roll ",
    "choose ",
    "not ",
    "and ",
    "or ",
    "procedure ",
    "table ",
    "include ",
    "variant ",
    "extends ",
    '"../../x"',
    '"/etc/passwd"',
    "d6",
    "2d6",
    "d10",
    "100000000 d10",
    "d0",
    "9" * 50,
    "9" * 4400,
    "-",
    "0",
    "1/0",
    "x * x",
    "range(1, 100000000)",
    "[" * 300,
    "not " * 300,
    "\u00ff",
    "\ufeff",
    "\x00",
    "é",
    "{x}",
    '"',
    "#",
    "[1.0]",
    "~",
    "—",
    "—3",
    "½",
    # grammar-aware (issue 37 §5): deep nesting, huge numbers, unicode names
    "(bonus + " * 80,
    "max(1, " * 40,
    "-(" * 60,
    "9" * 999,
    "ℵ",
    "x́",
]
# Scenario lines a mutation may add: [[start]] entries of every kind of TOML value.
SCENARIO_PIECES = [
    '[[start]]\nprocedure = "p"\n',
    '[[start]]\nprocedure = ["p"]\n',
    "[[start]]\nprocedure = 3\n",
    "[[start]]\nprocedure = true\n",
    '[[start]]\nprocedure = "p"\nargs = 3\n',
    '[[start]]\nprocedure = "p"\nargs = [1, 2]\n',
    '[[start]]\nprocedure = "p"\nargs = { x = "9" }\n',
    "[state]\nscore = 99999999999999999999\n",
    "turns = 0\n",
    'sequence = "nosuch"\n',
]
FLAGS = [
    ["--seed", "1"],
    ["--dice", "1,2,3"],
    ["--dice", "99"],
    ["--dice", "x"],
    ["--at", "x=5"],
    ["--at", "x=" + "9" * 5000],
    ["--at", "nosuch=1"],
    ["--decide", "stance=bold"],
    ["--decide", "nosuch=1"],
    ["--max-steps", "-1"],
    ["--max-steps", "50"],
    ["--json"],
    ["--at", "p=bold"],
    ["--at", "x=-3"],
    ["--at", "x=1.5"],
]


# A rulebook with a sequence of play, whose save and trace the file mutations start from.
GAME = """rulebook "Game" scenario "s"
dice d6 = 1..6
enum posture = cautious standard bold
track score 0..20 = 0 [1.0]
state year: int = 1942 [1.0]
state seen: list of int = [] [1.0]
procedure turn_work [2.0]
    choose stance from posture default standard [2.1]
    r = roll d6
    seen = seen + [r]
    if stance = bold and r > 3:
        score = score + 1
sequence turn [0.0] "Turn"
    phase turn_work [2.0]
"""
GAME_SCENARIO = '[scenario]\ntitle = "s"\nturns = 4\n'
# Values a file mutation may put in a field (TOML text for saves, JSON values for traces).
VALUES = [
    "1/0",
    "9" * 400,
    "-1",
    "true",
    '"x"',
    "[]",
    "{}",
    '"../../../etc/passwd"',
    '"/etc/passwd"',
    '"\u202e\u00ff"',
    "[" * 200 + "]" * 200,
    "1e308",
    "nan",
    '"' + "a" * 5000 + '"',
]
JSON_VALUES: list[object] = [
    None,
    -1,
    10**400,
    1e308,
    "x",
    "../../../etc/passwd",
    "/etc/passwd",
    "\u202e\u00ff",
    [],
    {},
    [[[[[[[[[[[]]]]]]]]]]],
    [1] * 10_000,
    "a" * 5000,
    True,
]


def game_files(work: Path) -> tuple[Path, str, str]:
    """GAME's folder, and the text of a save after 2 turns and of a trace of 4 turns."""
    book = work / "game"
    (book / "scenarios").mkdir(parents=True, exist_ok=True)
    (book / "rulebook.rk").write_text(GAME, encoding="utf-8")
    (book / "scenarios" / "s.toml").write_text(GAME_SCENARIO, encoding="utf-8")
    save, trace = work / "genuine.toml", work / "genuine.jsonl"
    for args in (["--turns", "2", "--save", str(save)], ["--trace", str(trace)]):
        result = CliRunner().invoke(main, ["run", str(book), "--seed", "3", *args])
        assert result.exit_code == 0, result.output
    return book, save.read_text(encoding="utf-8"), trace.read_text(encoding="utf-8")


def mutate_save(text: str, rng: random.Random) -> str:
    """A save with some fields' values replaced, lines dropped or repeated."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        what = rng.random()
        if what < 0.6 and " = " in lines[i]:
            key = lines[i].split(" = ", 1)[0]
            lines[i] = f"{key} = {rng.choice(VALUES)}"
        elif what < 0.75:
            del lines[i]
        elif what < 0.85:
            lines.insert(i, lines[rng.randrange(len(lines))])
        else:
            lines[i] = mutate(lines[i], rng)
        if not lines:
            lines = [""]
    return "\n".join(lines)


def mutate_trace(text: str, rng: random.Random) -> str:
    """A trace with some events' fields replaced or dropped, lines cut, swapped or doubled."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        what = rng.random()
        try:
            data = json.loads(lines[i])
        except ValueError:
            data = None
        if what < 0.6 and isinstance(data, dict) and data:
            key = rng.choice(sorted(data))
            if rng.random() < 0.2:
                del data[key]
            else:
                data[key] = rng.choice(JSON_VALUES)
            lines[i] = json.dumps(data)
        elif what < 0.7:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]  # a line cut short
        elif what < 0.8:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif what < 0.9:
            lines.insert(i, lines[rng.randrange(len(lines))])
        else:
            lines[i] = mutate(lines[i], rng)
    return "\n".join(lines) + "\n"


def one_file(
    work: Path, game: tuple[Path, str, str], rng: random.Random
) -> tuple[list[str], str | None, float]:
    """A mutated save (resumed) or trace (replayed) of GAME; the uncaught exception."""
    book, save, trace = game
    if rng.random() < 0.5:
        path = work / "mutated.toml"
        path.write_text(mutate_save(save, rng), encoding="utf-8", errors="surrogatepass")
        args = ["run", str(book), "--resume", str(path), "--turns", str(rng.randint(1, 2))]
    else:
        path = work / "mutated.jsonl"
        path.write_text(mutate_trace(trace, rng), encoding="utf-8", errors="surrogatepass")
        args = ["replay", str(path), "--rulebook", str(book)]
    return invoke(args, path.read_text(encoding="utf-8", errors="replace"))


def invoke(args: list[str], text: str) -> tuple[list[str], str | None, float]:
    """Run one command line in process: its uncaught exception or bad exit code, its time."""
    start = time.monotonic()
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    took = time.monotonic() - start
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-3:])
        return args, f"{type(exc).__name__}: {exc}\n{detail}\n--- input ---\n{text}", took
    if result.exit_code not in (0, 1, 2, 3):
        return args, f"exit code {result.exit_code}\n{result.stderr}\n--- input ---\n{text}", took
    return args, None, took


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        what = rng.random()
        if what < 0.4:
            text = text[:at] + rng.choice(PIECES) + text[at:]
        elif what < 0.7:
            text = text[:at] + text[at + rng.randint(1, 12) :]
        elif what < 0.85:
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif what < 0.93:
            end = min(len(text), at + rng.randint(1, 40))
            text = text[:end] + text[at:end] + text[end:]
        else:  # two words of the text swapped: each still a token of the language
            words = text.split(" ")
            i, j = rng.randrange(len(words)), rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
            text = " ".join(words)
    return text


def command(folder: Path, rng: random.Random) -> list[str]:
    book = str(folder)
    kind = rng.choice(["check", "resolve", "resolve", "prob", "fmt", "lookup", "tables", "run"])
    if kind == "check":
        args = ["check", book]
    elif kind == "resolve":
        args = ["resolve", book, rng.choice(["p", "q", "hits", "t", "nosuch", "3.0"])]
    elif kind == "prob":
        args = ["prob", book, rng.choice(["p", "hits", "a"]), "--max-paths", "200"]
    elif kind == "fmt":
        args = ["fmt", "--check", book]
    elif kind == "lookup":
        args = ["lookup", book, rng.choice(["t", "hits", "a"]), "--roll", str(rng.randint(-3, 14))]
    elif kind == "tables":
        args = ["tables", book]
    else:
        args = ["run", book, "--turns", str(rng.randint(-1, 2)), "--seed", "1"]
    for _ in range(rng.randint(0, 2)):
        args += rng.choice(FLAGS)
    return args


def one(folder: Path, rng: random.Random) -> tuple[list[str], str | None, float]:
    """Write a mutated rulebook into ``folder``, run one command; the uncaught exception."""
    text = mutate(rng.choice(SEEDS), rng)
    data = text.encode("utf-8", errors="surrogatepass")
    if rng.random() < 0.05:
        data = data.replace(b"\xc3\xbf", b"\xff")  # a byte that is not UTF-8
    (folder / "rulebook.rk").write_bytes(data)
    scenario = SCENARIO
    if rng.random() < 0.2:  # a mutated scenario, read by check and run
        scenario += rng.choice(SCENARIO_PIECES)
    (folder / "scenarios" / "s.toml").write_text(scenario, encoding="utf-8")
    return invoke(command(folder, rng), text)


SLOWEST: list[str] = []  # the slowest input's command line, for the report


def run(count: int, seed: int, show: int = 3, files: float = 0.2) -> tuple[int, list[str], float]:
    """``count`` inputs, a share ``files`` of them saves and traces."""
    rng = random.Random(seed)
    failures: list[str] = []
    slowest = 0.0
    with tempfile.TemporaryDirectory(prefix="rulekit-fuzz-") as tmp:
        folder = Path(tmp) / "book"
        (folder / "scenarios").mkdir(parents=True)
        (folder / "scenarios" / "s.toml").write_text(SCENARIO, encoding="utf-8")
        game = game_files(Path(tmp)) if files > 0 else None
        for _ in range(count):
            if game is not None and rng.random() < files:
                args, failure, took = one_file(Path(tmp), game, rng)
                shown = Path(args[3] if args[0] == "run" else args[1])
            else:
                args, failure, took = one(folder, rng)
                shown = folder / "rulebook.rk"
            if took > slowest:
                SLOWEST[:] = [" ".join(args[:1] + args[2:]), shown.read_text(
                    encoding="utf-8", errors="replace")]  # fmt: skip
            slowest = max(slowest, took)
            if failure is not None:
                failures.append(f"{' '.join(args[:1] + args[2:])}\n{failure}")
    return count, failures, slowest


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="inputs to run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--files", type=float, default=0.2, help="the share of saves and traces (0 to 1)"
    )
    ns = parser.parse_args()
    os.environ["RULEKIT_CACHE"] = "off"
    began = time.monotonic()
    count, failures, slowest = run(ns.count, ns.seed, files=ns.files)
    print(f"inputs: {count} ({time.monotonic() - began:.0f} s)")
    print(f"uncaught exceptions: {len(failures)}")
    print(f"slowest input: {slowest:.2f}s ({SLOWEST[0] if SLOWEST else '-'})")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # KB on Linux
    print(f"peak memory: {peak} MB")
    if slowest > 5 and SLOWEST:
        print("--- the slowest input ---\n" + SLOWEST[1])
    for failure in failures[:3]:
        print("----\n" + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    cli()
