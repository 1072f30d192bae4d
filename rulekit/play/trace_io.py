"""Trace files, plain or compressed: ``--trace FILE.jsonl``, ``FILE.jsonl.gz``,
``FILE.jsonl.zst``.

A full Silent War campaign's trace is about 560 MB of JSON lines; compressed it is a few
percent of that. gzip is in the standard library; zstd needs the ``zstandard`` package
(``pip install zstandard``), and asking for it without says so. Reading tells the format by
the file's first bytes, not its name, so a renamed file still replays.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import IO, Any

from rulekit.errors import InputError, error, read_text

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# A trace is read whole to be replayed: a file that would decompress past this is refused
# rather than filling memory (a full campaign is about 560 MB).
MAX_TRACE_BYTES = 2 * 1024**3


def _zstandard(where: str) -> Any:
    try:
        import zstandard
    except ImportError:
        raise InputError(
            [
                error(
                    "a .zst trace needs the zstandard package, which is not installed",
                    where=where,
                    hint="pip install zstandard, or write FILE.jsonl.gz (gzip needs nothing)",
                )
            ]
        ) from None
    return zstandard


def open_sink(path: str) -> IO[str]:
    """A text stream to write a trace to, compressed as the name says (.gz, .zst)."""
    lower = path.lower()
    if lower.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", compresslevel=6)
    if lower.endswith(".zst"):
        zstandard = _zstandard("--trace")
        raw = open(path, "wb")  # noqa: SIM115 - closed with the text stream
        writer = zstandard.ZstdCompressor(level=6).stream_writer(raw, closefd=True)
        return io.TextIOWrapper(writer, encoding="utf-8")
    return open(path, "w", encoding="utf-8")


def read_trace_text(path: str) -> str:
    """A trace's text, plain or compressed; a clear error for a damaged or oversized file."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(4)
    except OSError as exc:
        raise InputError(
            [error(f"cannot read '{path}': {exc.strerror or exc}", where="replay")]
        ) from None
    if not head.startswith(GZIP_MAGIC) and head != ZSTD_MAGIC:
        return read_text(path, path, "replay")
    try:
        if head.startswith(GZIP_MAGIC):
            with gzip.open(path, "rb") as stream:
                data = stream.read(MAX_TRACE_BYTES + 1)
        else:
            zstandard = _zstandard("replay")
            with open(path, "rb") as raw:
                data = zstandard.ZstdDecompressor().stream_reader(raw).read(MAX_TRACE_BYTES + 1)
    except (OSError, EOFError, ValueError) as exc:
        raise InputError(
            [error(f"'{path}' is damaged: it does not decompress ({exc})", where="replay")]
        ) from None
    except Exception as exc:  # zstandard.ZstdError is not an OSError
        raise InputError(
            [error(f"'{path}' is damaged: it does not decompress ({exc})", where="replay")]
        ) from None
    if len(data) > MAX_TRACE_BYTES:
        raise InputError(
            [
                error(
                    f"'{path}' decompresses to more than {MAX_TRACE_BYTES // 1024**3} GiB",
                    where="replay",
                )
            ]
        )
    plain = Path(path).with_suffix("")  # errors point at the trace as its lines number
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            [error(f"'{path}' ({plain.name}) is not UTF-8 text", where="replay")]
        ) from None
