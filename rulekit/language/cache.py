"""Parsed files and the parser's tables kept on disk, as JSON: reading an entry can never run
code (no pickle), so a planted or damaged entry costs at worst a parse.

A parsed file is keyed by its text, the path its spans name, the code that builds nodes
(grammar, parser, transformer, nodes) and the Python version: the same text always parses
to the same nodes, so a rulebook read again skips lark, which is most of a cold start. The
parser's LALR tables are keyed by the grammar and lark's version (parser.py). An entry is
checked as it is read (its own key inside, known node classes with their field counts,
plain values only) and signed: its first line is an HMAC of the rest under a secret key
of this user's kept beside the folder (``rulekit.key`` next to ``rulekit/``, 0600, made on
first use), so an entry planted or changed in the folder, or a folder copied from another
machine or restored from a CI cache, does not verify and is never trusted: whoever can
write the folder but not read the key cannot change what a procedure does. Anything that
does not verify is parsed anew and replaced. Only files that parse are
kept; entries are written atomically, so two commands running at once never read half an
entry. Pruning touches only this module's own entry names, never other files in the folder.

``RULEKIT_CACHE`` names the folder (default ``$XDG_CACHE_HOME/rulekit`` or
``~/.cache/rulekit``); ``RULEKIT_CACHE=off`` turns both caches off. The folder is created
user-only (0700) and read only while it is this user's and nobody else may write to it
(``private``); nothing is read from a rulebook's folder or the shared temp dir.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import attrs

from rulekit.language import nodes as n

FORMAT = 2  # of an entry's JSON (2: signed): a change to the encoding below is a new format
MAX_ENTRIES = 2000  # parsed files; beyond it the oldest half goes (edited files leave stale ones)
_OFF = ("", "0", "off", "no", "false")
_PARSED = re.compile(r"parse-[0-9a-f]{64}\.json")  # the only names pruning may delete
GRAMMAR = re.compile(r"grammar-[0-9a-f]{64}\.json")


def cache_dir() -> Path | None:
    """Where entries are kept, or None when the cache is off or its folder is not private
    (see ``private``)."""
    setting = os.environ.get("RULEKIT_CACHE")
    if setting is not None:
        if setting.strip().lower() in _OFF:
            return None
        folder = Path(setting)
    else:
        base = os.environ.get("XDG_CACHE_HOME")
        folder = (Path(base) if base else Path.home() / ".cache") / "rulekit"
    return folder if private(folder) else None


def private(folder: Path) -> bool:
    """Whether ``folder`` is fit to hold entries: a real directory (not a link planted in
    its place), this user's own, that nobody else may write to. It is created user-only
    (0700), and one of ours others may read is made so; a shared temp dir itself (world
    writable) or another user's folder is never read: no cache rather than their files."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.lstat()
        if not stat.S_ISDIR(st.st_mode):
            return False
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return False
        if st.st_mode & 0o022:  # others may plant or replace entries
            return False
        if st.st_mode & 0o077:
            os.chmod(folder, 0o700)
    except OSError:
        return False
    return True


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


# ---- the signing key: a secret of this user's, beside the folder -------------------------


def key_path(folder: Path) -> Path:
    """``~/.cache/rulekit`` -> ``~/.cache/rulekit.key``: not inside the folder, so a copy
    of the folder (a CI cache restored, a folder sent) carries no key its entries verify by."""
    return folder.with_name(folder.name + ".key")


_KEYS: dict[Path, bytes] = {}  # read once a process


def signing_key(folder: Path) -> bytes | None:
    """The secret entries of ``folder`` are signed with, made (0600) if there is none; None
    (no cache) when the file there is not a private file of this user's."""
    if folder in _KEYS:
        return _KEYS[folder]
    key = _read_key(key_path(folder))
    if key is not None:
        _KEYS[folder] = key
    return key


def _read_key(path: Path) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(2):
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError, OSError):
                made = os.open(
                    path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | (flags ^ os.O_RDONLY), 0o600
                )
                with os.fdopen(made, "wb") as out:
                    out.write(secrets.token_bytes(32))
            continue
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
            if not stat.S_ISREG(st.st_mode) or not mine or st.st_mode & 0o077:
                return None
            key = handle.read(64)
        return key if len(key) >= 32 else None
    return None


def _mac(secret: bytes, body: bytes) -> bytes:
    return hmac.new(secret, body, hashlib.sha256).hexdigest().encode()


# ---- entries: JSON files with their key inside, signed ------------------------------------


def read_entry(
    folder: Path, name: str, key: str, object_hook: Callable[[dict[str, Any]], Any] | None = None
) -> Any:
    """The data of an entry, or None if it is missing, unreadable, not this key's, or not
    signed with this user's key."""
    secret = signing_key(folder)
    if secret is None:
        return None
    try:
        mac, _, body = (folder / name).read_bytes().partition(b"\n")
        if not hmac.compare_digest(mac, _mac(secret, body)):
            return None
        entry = json.loads(body, object_hook=object_hook)
    except (OSError, ValueError, TypeError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    return entry.get("data")


def write_entry(folder: Path, name: str, key: str, data: Any) -> None:
    """Write one entry atomically; a cache that cannot be written is no cache, not an error."""
    tmp: str | None = None
    secret = signing_key(folder)
    if secret is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"format": FORMAT, "key": key, "data": data}, separators=(",", ":"))
        signed = _mac(secret, body.encode()) + b"\n" + body.encode()
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=name.split("-")[0] + "-", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(signed)
        os.replace(tmp, folder / name)
        tmp = None
    except (OSError, ValueError, RecursionError):
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def prune(folder: Path, pattern: re.Pattern[str], keep: int) -> None:
    """Past ``keep`` entries named by ``pattern``, delete the oldest half of them."""
    with contextlib.suppress(OSError):
        entries = [p for p in folder.iterdir() if pattern.fullmatch(p.name)]
        if len(entries) <= keep:
            return
        entries.sort(key=lambda p: p.stat().st_mtime)
        for old in entries[: len(entries) // 2]:
            with contextlib.suppress(OSError):
                old.unlink()


# ---- plain data with tuples and non-text keys (the parser's tables) ---------------------


def encode_plain(value: Any) -> Any:
    """JSON for str, int, bool, None, lists, tuples and dicts with any such keys."""
    if isinstance(value, dict):
        return {"d": [[encode_plain(k), encode_plain(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"t": [encode_plain(v) for v in value]}
    if isinstance(value, list):
        return [encode_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    raise TypeError(f"cannot keep a {type(value).__name__} in the cache")


def decode_plain(obj: dict[str, Any]) -> Any:
    """The inverse of :func:`encode_plain`, as ``read_entry``'s ``object_hook``: any other
    object (the entry itself) is left as it is."""
    if len(obj) == 1:
        if "t" in obj:
            return tuple(obj["t"])
        if "d" in obj:
            return dict(obj["d"])  # TypeError/ValueError unless pairs of hashable keys
    return obj


# ---- parsed files: nodes as tagged lists --------------------------------------------------


@lru_cache(maxsize=1)
def _node_classes() -> tuple[tuple[type, ...], dict[type, int], tuple[tuple[str, ...], ...]]:
    classes = sorted(
        {c for c in vars(n).values() if isinstance(c, type) and attrs.has(c) and c is not n.Span},
        key=lambda c: c.__name__,
    )
    fields = tuple(tuple(a.name for a in attrs.fields(c)) for c in classes)
    return tuple(classes), {c: i for i, c in enumerate(classes)}, fields


# Tags of what is not a node (nodes are tagged by their class's index, from 0).
_SPAN, _SPAN_ELSEWHERE, _TUPLE, _FRACTION = -1, -2, -3, -4


def encode_nodes(value: Any, path: str) -> Any:
    """A node tree as JSON-ready lists: ``[tag, field...]``; spans in ``path`` are short."""
    _, index, fields = _node_classes()
    kind = type(value)
    if kind is n.Span:
        if value.file == path:
            return [_SPAN, value.line, value.column, value.end_line, value.end_column]
        return [_SPAN_ELSEWHERE, *attrs.astuple(value)]
    tag = index.get(kind)
    if tag is not None:
        return [tag, *(encode_nodes(getattr(value, f), path) for f in fields[tag])]
    if kind is tuple:
        return [_TUPLE, *(encode_nodes(v, path) for v in value)]
    if kind is Fraction:
        return [_FRACTION, value.numerator, value.denominator]
    if value is None or kind in (str, int, bool):
        return value
    raise TypeError(f"cannot keep a {kind.__name__} in the cache")


def decode_nodes(data: Any, path: str) -> Any:
    """The inverse of :func:`encode_nodes`; ValueError/TypeError/IndexError if malformed."""
    classes, _, fields = _node_classes()
    span = n.Span

    def build(v: Any) -> Any:
        if type(v) is not list:
            if v is None or type(v) in (str, int, bool):
                return v
            raise ValueError("not a value of a node")
        tag = v[0]
        if type(tag) is not int:
            raise ValueError("an untagged list")
        if tag >= 0:
            if len(v) != len(fields[tag]) + 1:
                raise ValueError("a node with the wrong number of fields")
            return classes[tag](*[build(x) for x in v[1:]])
        if tag == _SPAN:
            return span(path, *v[1:])
        if tag == _TUPLE:
            return tuple([build(x) for x in v[1:]])
        if tag == _FRACTION:
            return Fraction(v[1], v[2])
        if tag == _SPAN_ELSEWHERE:
            return span(*v[1:])
        raise ValueError(f"unknown tag {tag}")

    return build(data)


def cached_parse(text: str, path: str, parse: Callable[[str, str], n.Module]) -> n.Module:
    """``parse(text, path)``, or the nodes it gave before for the same text and path."""
    folder = cache_dir()
    if folder is None:
        return parse(text, path)
    key = hashlib.sha256(_code_stamp() + path.encode() + b"\0" + text.encode()).hexdigest()
    name = f"parse-{key}.json"
    data = read_entry(folder, name, key)
    if data is not None:
        try:
            module = decode_nodes(data, path)
        except (ValueError, TypeError, IndexError, RecursionError):  # not ours: parse anew
            module = None
        if isinstance(module, n.Module) and module.path == path:
            return module
    module = parse(text, path)
    with contextlib.suppress(TypeError, RecursionError):  # a value JSON cannot hold: no entry
        write_entry(folder, name, key, encode_nodes(module, path))
        prune(folder, _PARSED, MAX_ENTRIES)
    return module
