"""`rulekit render` in a real headless Chromium: layout at A4, printed pages, screenshots.

Needs Debian's ``chromium`` and ``chromium-driver``, and selenium and pypdf (in the
``[test]`` extra). Without them every test here is skipped with a message saying what is missing.
Run only these with ``pytest -m browser``.
"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulekit.aids.cards import build_deck
from rulekit.aids.render import write
from rulekit.book.checker import load
from tests.conftest import RULEBOOKS

pytestmark = pytest.mark.browser

BOOKS = ["silent_war", "steel_wolves_like", "gato_leader", "eots_submarine_warfare", "attack_sub"]
CHROMIUM = os.environ.get("RULEKIT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = os.environ.get("RULEKIT_CHROMEDRIVER") or shutil.which("chromedriver") or ""

MM = 96 / 25.4  # CSS pixels per millimetre
# the page's @page margins: 10 mm left and right, 12 mm top, 14 mm bottom
A4 = (210.0, 297.0)
LETTER = (215.9, 279.4)


def _missing() -> str | None:
    try:
        import pypdf  # noqa: F401
        import selenium  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed: pip install -e '.[test]'"
    if not Path(CHROMIUM).exists() or not DRIVER:
        return (
            "no headless Chromium: apt-get install chromium chromium-driver "
            "(or set RULEKIT_CHROMIUM and RULEKIT_CHROMEDRIVER)"
        )
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing:
        pytest.skip(f"browser tests skipped: {missing}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int]]:
    """Each bundled rulebook rendered to HTML, with its number of tables."""
    out = tmp_path_factory.mktemp("render")
    rendered = {}
    for book in BOOKS:
        checked = load(str(RULEBOOKS / book))
        rendered[book] = (write(build_deck(checked), "html", out / book), len(checked.tables))
    return rendered


def _media(driver: Any, media: str, width: int, height: int = 1200, mobile: bool = False) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": media})
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )


@pytest.mark.parametrize("book", BOOKS)
def test_every_card_fits_the_width_of_an_a4_page(
    browser: Any, pages: dict[str, tuple[Path, int]], book: str
) -> None:
    path, tables = pages[book]
    width = round((A4[0] - 20) * MM)  # the printable width: A4 less the page margins
    _media(browser, "print", width)
    browser.get(path.as_uri())
    found = browser.execute_script(
        """
        const limit = document.documentElement.clientWidth + 1;
        const wide = [];
        for (const e of document.querySelectorAll('body *')) {
          const r = e.getBoundingClientRect();
          if (r.width > 0 && r.right > limit) wide.push(e.tagName + ' in ' +
            (e.closest('.card') || document.body).id + ': ' + Math.round(r.right));
        }
        return [document.querySelectorAll('section.card').length, wide,
                document.documentElement.scrollWidth];
        """
    )
    cards, wide, scroll = found
    assert cards == tables
    assert wide == [], f"wider than A4: {wide[:10]}"
    assert scroll <= width


# Every rulebook on A4 and on Letter (printing all of them takes seconds since provisional
# cells print as a flat tint, not a hatch painted per cell).
PRINTS = [(book, paper) for book in BOOKS for paper in (A4, LETTER)]
# A hatch per cell made Chromium paint each provisional cell as an image: Silent War's aids
# printed to a 110 MB PDF. Text and flat fills keep every deck to a few megabytes.
MAX_PDF_BYTES = 5_000_000


@pytest.mark.parametrize(
    ("book", "paper"), PRINTS, ids=[f"{b}-{'A4' if p == A4 else 'Letter'}" for b, p in PRINTS]
)
def test_printed_pages_never_split_a_card(
    browser: Any, pages: dict[str, tuple[Path, int]], book: str, paper: tuple[float, float]
) -> None:
    """Each card's first and last words (tiny white marks) are on the same printed page."""
    from pypdf import PdfReader

    path, tables = pages[book]
    # printing lays the page out again at the paper's size: no emulated screen in the way
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    browser.get(path.as_uri())
    pdf = browser.execute_cdp_cmd(
        "Page.printToPDF",
        {
            "paperWidth": paper[0] / 25.4,
            "paperHeight": paper[1] / 25.4,
            "printBackground": True,
            "preferCSSPageSize": False,
        },
    )
    data = base64.b64decode(pdf["data"])
    assert len(data) < MAX_PDF_BYTES, f"{len(data):,} bytes"
    reader = PdfReader(io.BytesIO(data))
    where: dict[int, dict[str, list[int]]] = {}
    for number, page in enumerate(reader.pages):
        for mark in re.finditer(r"rk-(begin|end)-(\d+)", page.extract_text() or ""):
            where.setdefault(int(mark.group(2)), {}).setdefault(mark.group(1), []).append(number)
    assert sorted(where) == list(range(1, tables + 1))
    # a card longer than a page (Silent War's roster of 256 submarines, its reinforcement
    # list) is marked `paged` and printed across pages between rows; every other card is on
    # one page, and no card starts or ends inside a paged card's pages
    paged = {i + 1 for i, c in enumerate(build_deck(load(str(RULEBOOKS / book))).cards) if c.paged}
    split = {card: at for card, at in where.items() if at.get("begin") != at.get("end")}
    assert set(split) <= paged, f"cards split across pages (card: pages): {split}"
    for card in paged:
        first, last = where[card]["begin"][0], where[card]["end"][0]
        assert first <= last
        inside = [
            other
            for other, at in where.items()
            if other != card and any(first < page < last for page in at["begin"] + at["end"])
        ]
        assert inside == [], f"cards {inside} printed inside paged card {card}"
    # the footer and page number print in every page's margin (a fixed footer printed
    # over the first card of each page after the first)
    for number, page in enumerate(reader.pages, 1):
        assert f"page {number} of {len(reader.pages)}" in (page.extract_text() or "")


def _distinct_bytes(png: bytes) -> int:
    """How many different byte values the decompressed image data holds (a blank page
    compresses to rows of one value)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, data = 8, b""
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        if kind == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    return len(set(zlib.decompress(data)))


def test_distinct_bytes_tells_a_blank_picture() -> None:
    def png(rows: list[bytes]) -> bytes:
        raw = b"".join(b"\x00" + r for r in rows)
        head = struct.pack(">IIBBBBB", len(rows[0]) // 3, len(rows), 8, 2, 0, 0, 0)

        def chunk(kind: bytes, body: bytes) -> bytes:
            crc = zlib.crc32(kind + body)
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw))

    assert _distinct_bytes(png([b"\xff" * 30] * 10)) <= 2
    assert _distinct_bytes(png([bytes(range(i, i + 30)) for i in range(10)])) > 20


@pytest.mark.parametrize("book", BOOKS)
def test_screenshots_are_not_blank(
    browser: Any, pages: dict[str, tuple[Path, int]], book: str
) -> None:
    from selenium.webdriver.common.by import By

    path, _ = pages[book]
    _media(browser, "screen", 1000)
    browser.get(path.as_uri())
    cards = browser.find_elements(By.CSS_SELECTOR, "section.card")
    for card in (cards[0], cards[-1]):
        browser.execute_script("arguments[0].scrollIntoView()", card)
        assert _distinct_bytes(card.screenshot_as_png) > 20, card.get_attribute("id")


@pytest.mark.parametrize("book", BOOKS)
def test_readable_on_a_phone(browser: Any, pages: dict[str, tuple[Path, int]], book: str) -> None:
    """At a phone's width the page does not scroll sideways (wide charts scroll in place)."""
    path, _ = pages[book]
    _media(browser, "screen", 390, 844, mobile=True)
    browser.get(path.as_uri())
    width, font = browser.execute_script(
        "return [document.documentElement.scrollWidth,"
        " parseFloat(getComputedStyle(document.body).fontSize)]"
    )
    assert width <= 390
    assert font >= 14
