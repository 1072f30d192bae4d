"""Player aids as a PDF: the HTML page printed by headless Chromium.

Why Chromium: the HTML page is already laid out and tested for print in Chromium (page
breaks between rows, headers repeated, wide charts scaled, the footer and page numbers in
the page's margin boxes), so printing that page gives the PDF the browser tests check,
with no second layout to keep in step. Debian's ``chromium`` installs from the package
registry (``apt-get install chromium``); a Python PDF library would need a layout of its
own (or, like WeasyPrint, Pango from the system as well).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from rulekit.errors import InputError, error

# Paper sizes as CSS names them (``@page { size: ... }``, which Chromium's printing honours)
PAPERS = {"a4": "A4", "letter": "letter"}
# Printing Silent War's 38 cards takes about 2 s; a browser that hangs must not hang us.
PRINT_SECONDS = 120
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str:
    """The browser to print with: ``$RULEKIT_CHROMIUM``, else the first on PATH."""
    named = os.environ.get("RULEKIT_CHROMIUM")
    if named:
        if Path(named).is_file() and os.access(named, os.X_OK):
            return named
        raise InputError([error(f"RULEKIT_CHROMIUM={named!r} is not an executable file")])
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise InputError(
        [
            error(
                "--format pdf prints the HTML page with headless Chromium, and none was found",
                hint="install it (Debian/Ubuntu: apt-get install chromium) or set "
                "RULEKIT_CHROMIUM to its path; or use --format html and print the page "
                "from any browser",
            )
        ]
    )


def print_pdf(html: str, out: Path, browser: str | None = None) -> None:
    """Print ``html`` (a whole self-contained page) to the PDF file ``out``.

    The page and the browser's profile go in a private temporary folder; the PDF is written
    beside ``out`` and moved into place, so a failed print never leaves half a file."""
    browser = browser or find_chromium()
    with tempfile.TemporaryDirectory(prefix="rulekit-pdf-") as tmp:
        page = Path(tmp) / "aids.html"
        page.write_text(html, encoding="utf-8")
        printed = Path(tmp) / "aids.pdf"
        command = [
            browser,
            "--headless=new",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-pdf-header-footer",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--print-to-pdf={printed}",
        ]
        if getattr(os, "geteuid", lambda: -1)() == 0:
            command.append("--no-sandbox")  # Chromium refuses to start its sandbox as root
        command.append(page.as_uri())
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=PRINT_SECONDS, check=False
            )
        except subprocess.TimeoutExpired:
            raise InputError(
                [error(f"{browser} did not finish printing within {PRINT_SECONDS} s")]
            ) from None
        except OSError as exc:
            raise InputError([error(f"cannot run {browser}: {exc.strerror}")]) from None
        if not printed.is_file() or printed.read_bytes()[:5] != b"%PDF-":
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise InputError([error(f"{browser} printed no PDF (exit {done.returncode}): {last}")])
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=out.name + ".", suffix=".part", dir=out.parent)
        os.close(fd)
        try:
            shutil.copyfile(printed, partial)
            os.replace(partial, out)
        except BaseException:
            Path(partial).unlink(missing_ok=True)
            raise
