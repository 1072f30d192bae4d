"""Paths on the command line: a file to write, checked before the work; a trace's rulebook."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rulekit.errors import InputError, error


def writable(path: str, flag: str) -> None:
    """A file can be written at ``path`` (its folder may still have to be made)."""
    target = Path(path)
    folder = next((p for p in target.absolute().parents if p.exists()), Path("/"))
    problem = None
    if target.is_dir():
        problem = "it is a folder"
    elif target.exists() and not os.access(target, os.W_OK):
        problem = "the file is read-only"
    elif not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        problem = f"'{folder}' cannot be written"
    if problem:
        raise InputError([error(f"cannot write '{path}': {problem}", where=flag)])


def traced_rulebook(header: dict[str, Any]) -> str:
    """The rulebook a trace was recorded with: by the absolute path it stores (so a replay
    works from any directory), else as it was given (traces of older rulekits)."""
    rulebook = str(header.get("rulebook_path", ""))
    if not Path(rulebook.partition("@")[0]).exists():
        rulebook = str(header.get("rulebook", ""))
    if not Path(rulebook.partition("@")[0]).exists():
        raise InputError(
            [
                error(
                    f"the trace's rulebook '{header.get('rulebook_path', rulebook)}' "
                    "is not there any more",
                    where="replay",
                    hint="give --rulebook DIR",
                )
            ]
        )
    return rulebook
