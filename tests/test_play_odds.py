"""Each option's odds at a decision of ``rulekit play`` (``view D = P``, rulekit.play.odds).

The chances shown are checked against counts made here, face by face, from the tables the
rules print (the tutorial's Gunnery Table [T2] and its modifiers [T2.1]; Silent War's to-hit
roll [14.16 C]: "If the roll is = or < the result (difference), the target has been hit",
a d10 whose 0 is zero), never against the odds module's own output.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from rulekit.book.checker import load
from rulekit.errors import RulekitError
from rulekit.play import odds as odds_module
from rulekit.play.interactive import PlaySession, start_save
from rulekit.play.odds import percent

pexpect = pytest.importorskip("pexpect")

from test_play import PROMPT, RULEKIT, enter_until  # noqa: E402
from test_play_board import spawn100  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# the tutorial (Harbour Raid) in clear weather, its range decision showing the shot's odds
ODDS_VIEW = """
view choose range = shot_odds [3.2] "the shot"

procedure shot_odds(range: int) -> shot [3.2]
    return gunnery(roll: roll 2d6 + gunnery_drm(range, weather))
"""


def harbour_raid(tmp_path: Path, view: str = ODDS_VIEW) -> Path:
    """examples/tutorial with the odds view, and no weather phase: the weather stays Clear,
    as the count below assumes."""
    root = tmp_path / "raid"
    shutil.copytree(ROOT / "examples" / "tutorial", root)
    main = root / "rulebook.rk"
    text = main.read_text(encoding="utf-8").replace("    phase weather_phase [3.1]\n", "")
    main.write_text(text + view, encoding="utf-8")
    return root


def gunnery_by_hand(range_: int) -> dict[str, Fraction]:
    """The Gunnery Table [T2] on 2d6 with the modifiers [T2.1] in clear weather, counted over
    the 36 throws: 6 or less miss, 7-9 damaged, 10 or more sunk; +1 at point blank (range
    1), -1 each hex beyond the first."""
    drm = (1 if range_ == 1 else 0) - (range_ - 1)
    counts = {"miss": 0, "damaged": 0, "sunk": 0}
    for a, b in product(range(1, 7), repeat=2):
        total = a + b + drm
        counts["miss" if total <= 6 else "damaged" if total <= 9 else "sunk"] += 1
    return {k: Fraction(v, 36) for k, v in counts.items()}


def test_each_range_shows_the_shots_odds_counted_by_hand(tmp_path: Path) -> None:
    book = str(harbour_raid(tmp_path))
    child = spawn100(tmp_path, book, "--seed", "1")
    child.expect(r"\? Range to the raider, in hexes \[3\.2\]")
    child.expect(PROMPT)
    shown = re.findall(r"#(\d) (\d)[^:\r\n]*: the shot: ([^\r\n]+)", child.before)
    assert [r for _, r, _ in shown] == ["1", "2", "3"], child.before
    for _, range_, said in shown:
        counted = gunnery_by_hand(int(range_))
        expected = ", ".join(f"{k} {percent(p)}" for k, p in counted.items() if p)
        assert said.strip() == expected, (range_, said)
        # and `rulekit prob` of the same procedure says the same
        printed = subprocess.run(
            [RULEKIT, "prob", book, "shot_odds", "--at", f"range={range_}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        by_prob = dict(re.findall(r"│ (\w+)\s+│\s+(\d+(?:/\d+)?) │", printed))
        assert {k: Fraction(v) for k, v in by_prob.items()} == {
            k: p for k, p in counted.items() if p
        }
    # the docs' count: at range 3 only a 12 sinks (1/36), at range 1 nine or more (10/36)
    assert gunnery_by_hand(3)["sunk"] == Fraction(1, 36)
    assert gunnery_by_hand(1)["sunk"] == Fraction(10, 36)
    child.sendline("?")  # the help repeats each option's odds
    child.expect(r"#3 3: the shot: miss 72\.2%")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)


def test_odds_not_ready_in_time_are_said_and_the_question_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULEKIT_PLAY_DIR", str(tmp_path / "play"))
    monkeypatch.setattr(odds_module, "ODDS_SECONDS", 0.0)
    book = str(harbour_raid(tmp_path))
    checked = load(book)
    written: list[str] = []
    answers = iter(["quit", "n"])
    session = PlaySession(
        checked, start_save(checked, book, None, 1), lambda _: next(answers), written.append
    )
    assert session.run() == 0
    text = "\n".join(written)
    assert "odds (the shot): not worked out within 0 s" in text
    assert "? Range to the raider, in hexes" in text
    assert "miss" not in text  # no odds half shown


def test_an_odds_view_must_take_the_option(tmp_path: Path) -> None:
    bad = ODDS_VIEW.replace("shot_odds(range: int)", "shot_odds(hexes: int)").replace(
        "gunnery_drm(range,", "gunnery_drm(hexes,"
    )
    with pytest.raises(RulekitError) as caught:
        load(str(harbour_raid(tmp_path, bad)))
    assert "must take the option as a parameter named 'range'" in str(caught.value)


def d10_chance(needs: int, drm: int) -> Fraction:
    """[14.16 C] counted over the ten faces 0-9 ("zero (0) is always zero" [3.0]): a hit
    when the roll plus its modifiers is the difference or less."""
    return Fraction(sum(1 for face in range(10) if face + drm <= needs), 10)


NEEDS = re.compile(
    r"#(\d+) (\d+)(?: \(default\))?: to hit: (?:needs (-?\d+) \(difference\) or less on d10"
    r"((?:, [+-]\d+ [^,:\r\n]+)*): ([\d.]+%)|0% \(no roll can do it\))"
)


def test_silent_war_attack_points_show_the_to_hit_chance(tmp_path: Path) -> None:
    """Seed 3: the first allocation the player is asked about; each option's chance is the
    count of d10 faces its printed need allows, and the need of the option taken is the
    difference the attack then rolls against."""
    child = spawn100(tmp_path, "rulebooks/silent_war", "--seed", "3")
    checked_one = False
    for _ in range(6):
        enter_until(child, r"\? Attack points for [^\r\n]+\[14\.15\]")
        child.expect(r"\r\n(\[[^\r\n]*\]) > ")
        default = child.match.group(1).strip("[]")
        lines = NEEDS.findall(child.before)
        assert lines, child.before
        assert len(lines) == len(re.findall(r"\r\n  #\d+ ", child.before))
        default_needs = None
        for _, points, needs, mods, chance in lines:
            if not needs:
                continue
            drm = sum(int(m) for m in re.findall(r", ([+-]\d+) ", mods))
            assert chance == percent(d10_chance(int(needs), drm)), (points, needs, chance)
            if points == default:
                default_needs = needs
        assert "Maru" not in child.before  # a face-down target's name never shows
        child.sendline("")
        if default_needs is not None:
            # the attack on this target rolls against the same difference
            child.expect(
                r"Resolving the Attack \[14\.16\]: rolled -?\d+[^\r\n]*; "
                r"more than (-?\d+) \(difference\)"
            )
            assert child.match.group(1) == default_needs
            checked_one = True
            break
    assert checked_one
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)


def test_silent_war_odds_are_worked_out_well_within_their_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULEKIT_PLAY_DIR", str(tmp_path / "play"))
    checked = load("rulebooks/silent_war")
    took: list[tuple[float, bool]] = []
    work_out = odds_module.Odds.work_out

    def timed(self: odds_module.Odds, *args: object, **kwargs: object) -> object:
        start = time.process_time()
        found = work_out(self, *args, **kwargs)  # type: ignore[arg-type]
        took.append((time.process_time() - start, isinstance(found, list)))
        return found

    monkeypatch.setattr(odds_module.Odds, "work_out", timed)

    def read(_: str) -> str:
        if len(took) >= 4:
            raise EOFError
        return ""

    session = PlaySession(
        checked, start_save(checked, "rulebooks/silent_war", None, 3), read, lambda _: None
    )
    assert session.run() == 130  # stopped as by Ctrl-D, once four decisions had odds
    assert len(took) == 4
    assert all(ready for _, ready in took)
    assert max(seconds for seconds, _ in took) < odds_module.ODDS_SECONDS
