"""`rulekit render --format pdf`: real PDFs printed by headless Chromium, read back as a
printer would see them.

Needs Debian's ``chromium`` (and ``pdftoppm`` from poppler-utils for the page images) and
``pdfplumber`` (in the ``[test]`` extra); without them these tests are skipped with what is
missing. The checks read the PDF, not our HTML: word boxes (pdfplumber) must not overlap
(the old fixed footer printed over the first card title of every page after the first:
283 overlapping words on Silent War's aids), every card's title is on a page, the pages are
the paper asked for, and each page image has ink on it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rulekit.aids.cards import build_deck
from rulekit.aids.pdf import CANDIDATES
from rulekit.book.checker import load
from rulekit.cli.main import main
from tests.conftest import RULEBOOKS

pytestmark = pytest.mark.browser

BOOKS = ["silent_war", "steel_wolves_like", "gato_leader", "eots_submarine_warfare", "attack_sub"]
# PDF points per millimetre; A4 and Letter in points as PDF page boxes give them
PT = 72 / 25.4
A4 = (210.0 * PT, 297.0 * PT)
LETTER = (8.5 * 72, 11.0 * 72)


def _missing() -> str | None:
    try:
        import pdfplumber  # noqa: F401
    except ImportError:
        return "pdfplumber is not installed: pip install -e '.[test]'"
    if not any(shutil.which(c) for c in CANDIDATES):
        return "no headless Chromium: apt-get install chromium"
    return None


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Every bundled rulebook printed on A4, and Silent War on Letter as well."""
    missing = _missing()
    if missing:
        pytest.skip(f"PDF tests skipped: {missing}")
    out = tmp_path_factory.mktemp("pdf")
    done = {}
    for book, paper in [(b, "a4") for b in BOOKS] + [("silent_war", "letter")]:
        path = out / f"{book}-{paper}.pdf"
        result = CliRunner().invoke(
            main,
            ["render", str(RULEBOOKS / book), "--format", "pdf", "--paper", paper, "-o", str(path)],
        )
        assert result.exit_code == 0, result.output
        done[(book, paper)] = path
    return done


def _words(page: Any) -> list[dict[str, Any]]:
    # the tiny white marks of each card's first and last line are for the HTML print tests
    return [w for w in page.extract_words() if not re.fullmatch(r"rk-(begin|end)-\d+", w["text"])]


def overlaps(words: list[dict[str, Any]], slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of words whose boxes overlap by more than ``slack`` points both ways."""
    found = []
    ordered = sorted(words, key=lambda w: w["top"])
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b["top"] >= a["bottom"] - slack:
                break
            across = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if across > slack and down > slack:
                found.append((a["text"], b["text"]))
    return found


def test_overlaps_finds_words_printed_over_each_other() -> None:
    def word(text: str, x0: float, top: float) -> dict[str, Any]:
        return {"text": text, "x0": x0, "x1": x0 + 30, "top": top, "bottom": top + 8}

    assert overlaps([word("a", 0, 0), word("b", 40, 0), word("c", 0, 9)]) == []
    assert overlaps([word("footer", 10, 100), word("[14.12]", 20, 103)]) == [("footer", "[14.12]")]


@pytest.mark.parametrize(("book", "paper"), [(b, "a4") for b in BOOKS] + [("silent_war", "letter")])
def test_printed_pdf_has_no_text_over_text_and_every_title(
    printed: dict[tuple[str, str], Path], book: str, paper: str
) -> None:
    import pdfplumber

    deck = build_deck(load(str(RULEBOOKS / book)))
    size = A4 if paper == "a4" else LETTER
    text = []
    with pdfplumber.open(printed[(book, paper)]) as pdf:
        assert len(pdf.pages) >= 1
        for number, page in enumerate(pdf.pages, 1):
            assert (page.width, page.height) == pytest.approx(size, abs=1.5)
            assert overlaps(_words(page)) == [], f"page {number}"
            text.append(page.extract_text() or "")
    flat = re.sub(r"\s+", " ", " ".join(text))
    for card in deck.cards:
        title = re.sub(r"\s+", " ", (f"[{card.rule}] " if card.rule else "") + card.title)
        assert title in flat, f"card title not printed: {title}"
    # the footer and page numbers print in the page margin, on every page
    assert flat.count(f"of {len(text)}") >= len(text)


def test_pdf_pages_are_not_blank(printed: dict[tuple[str, str], Path], tmp_path: Path) -> None:
    """Each page of Silent War's aids, as pdftoppm renders it, has ink on it."""
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm is not installed: apt-get install poppler-utils")
    subprocess.run(
        ["pdftoppm", "-r", "20", "-gray", printed[("silent_war", "a4")], str(tmp_path / "p")],
        check=True,
    )
    pages = sorted(tmp_path.glob("p-*.pgm"))
    assert pages
    for page in pages:
        data = page.read_bytes()
        pixels = data[data.index(b"255\n") + 4 :]
        dark = sum(1 for b in pixels if b < 128)
        assert dark > 50, f"{page.name} is blank"


def test_records_print_as_labelled_fields_and_lists_one_a_line() -> None:
    """A record is its first field, then each other field labelled; a box holding a list of
    records (a month's arrivals) prints one record a line; no tuple reaches the page."""
    from rulekit.aids.render import render_text

    html = render_text(build_deck(load(str(RULEBOOKS / "silent_war"))), "html")
    assert "(Reinforcement," not in html and "(No Event," not in html
    assert 'Reinforcement · <span class="k">sub </span>Greenling' in html
    assert '<span class="k">at </span>Fremantle<br>Reinforcement' in html
    # an enum member in words, a modifier's value as a quantity, not code
    assert "task_force_only" not in html and "task force only" in html
    assert "+sub.tactical" not in html and "+sub&#39;s tactical" in html


def test_pdf_without_a_browser_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner(env={"RULEKIT_CHROMIUM": str(tmp_path / "nowhere")}).invoke(
        main,
        [
            "render",
            str(RULEBOOKS / "eots_submarine_warfare"),
            "--format",
            "pdf",
            "-o",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 1
    assert "RULEKIT_CHROMIUM" in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []
