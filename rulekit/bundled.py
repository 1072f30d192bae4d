"""The rulebooks and examples that come with rulekit, found by name from any directory.

In a clone (or an editable install) they are the repository's own ``rulebooks/`` and
``examples/`` folders; in an installed wheel, copies of them under ``rulekit/_bundled/``
(``setup.py``'s build step puts them there, so the folders stay at the top of the clone).
A path on the command line always wins: a name is looked up here only when no file or
folder by that name exists.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# the example folders that are rulebooks of their own (a rulebook.rk in them)
KINDS = ("rulebooks", "examples")


def root() -> Path | None:
    """The folder holding ``rulebooks/`` and ``examples/``: the wheel's copy, else the clone."""
    for candidate in (_PACKAGE / "_bundled", _PACKAGE.parent):
        if (candidate / "rulebooks").is_dir():
            return candidate
    return None


def rulebooks() -> dict[str, Path]:
    """Bundled rulebook name -> its folder: ``rulebooks/*`` first, then the examples that
    are rulebooks (``tutorial``, ``battle``)."""
    base = root()
    found: dict[str, Path] = {}
    if base is None:
        return found
    for kind in KINDS:
        for folder in sorted((base / kind).glob("*/rulebook.rk")):
            found.setdefault(folder.parent.name, folder.parent)
    return found


def rulebook(name: str) -> Path | None:
    """The bundled rulebook called ``name`` (a bare name, no folder in it), if any."""
    if "/" in name or "\\" in name or Path(name).exists():
        return None
    return rulebooks().get(name)


def file(path: str) -> Path | None:
    """A bundled file named as the README names it (``examples/silent_war/x.toml``), when
    there is no such file here."""
    base = root()
    if base is None or Path(path).exists() or Path(path).is_absolute():
        return None
    candidate = base / path
    return candidate if candidate.is_file() and path.split("/")[0] in KINDS else None
