"""Parsed files kept on disk: the same text always parses to the same nodes, so a rulebook
read again skips lark, which is most of a command's start-up.

An entry is keyed by the file's text, the path its spans name, the code that builds nodes
(grammar, parser, transformer, nodes) and the Python version; an entry that is missing,
unreadable or of another kind is parsed anew. Only files that parse are kept. Entries are
written atomically, so two commands running at once never read half an entry.

``RULEKIT_CACHE`` names the folder (default ``$XDG_CACHE_HOME/rulekit`` or
``~/.cache/rulekit``); ``RULEKIT_CACHE=off`` turns the cache off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from rulekit.language import nodes as n

MAX_ENTRIES = 2000  # beyond it the oldest half goes: edited files leave stale entries behind
_OFF = ("", "0", "off", "no", "false")


def cache_dir() -> Path | None:
    """Where entries are kept, or None when the cache is off."""
    setting = os.environ.get("RULEKIT_CACHE")
    if setting is not None:
        return None if setting.strip().lower() in _OFF else Path(setting)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "rulekit"


@lru_cache(maxsize=1)
def _code_stamp() -> bytes:
    """What the nodes of a text depend on besides the text: a change to it is a new key."""
    stamp = hashlib.sha256(sys.version.encode())
    package = files("rulekit.language")
    for name in ("grammar.lark", "parser.py", "transformer.py", "cache.py"):
        stamp.update(package.joinpath(name).read_bytes())
    nodes = package.joinpath("nodes")
    for name in ("__init__.py", "base.py", "exprs.py", "stmts.py", "decls.py"):
        stamp.update(nodes.joinpath(name).read_bytes())
    return stamp.digest()


def cached_parse(text: str, path: str, parse: Callable[[str, str], n.Module]) -> n.Module:
    """``parse(text, path)``, or the nodes it gave before for the same text and path."""
    folder = cache_dir()
    if folder is None:
        return parse(text, path)
    key = hashlib.sha256(_code_stamp() + path.encode() + b"\0" + text.encode()).hexdigest()
    entry = folder / f"{key}.pickle"
    try:
        module = pickle.loads(entry.read_bytes())
    except Exception:  # missing, unreadable or written by other code: parse anew
        module = None
    if isinstance(module, n.Module):
        return module
    module = parse(text, path)
    _store(folder, entry, module)
    return module


def _store(folder: Path, entry: Path, module: n.Module) -> None:
    """Write one entry atomically; a cache that cannot be written is no cache, not an error."""
    tmp: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            pickle.dump(module, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, entry)
        tmp = None
        _prune(folder)
    except OSError:
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _prune(folder: Path) -> None:
    entries = list(folder.glob("*.pickle"))
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for old in entries[: len(entries) // 2]:
        with contextlib.suppress(OSError):
            old.unlink()
