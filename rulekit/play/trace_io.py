"""Trace files, plain or compressed: ``--trace FILE.jsonl``, ``FILE.jsonl.gz``,
``FILE.jsonl.zst``.

A full Silent War campaign's trace is about 560 MB of JSON lines; compressed it is a few
percent of that. gzip is in the standard library; zstd needs the ``zstandard`` package
(the ``zstd`` extra: ``pip install 'rulekit[zstd]'``), and asking for it without says so,
before anything is played or written. Reading tells the format by
the file's first bytes, not its name, so a renamed file still replays.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import IO, Any, Protocol

from rulekit.errors import InputError, error, read_text

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# A trace is read whole to be replayed: a file that would decompress past this is refused
# rather than filling memory (a full campaign is about 560 MB).
MAX_TRACE_BYTES = 2 * 1024**3


# read a compressed trace in pieces, so a bomb is caught at the limit, not after it
CHUNK = 1 << 20
# compressed bytes fed to zstd at a time: a zstd block of 4 bytes can stand for 128 KiB, so
# this bounds what one call can make (4 KiB in, at most about 128 MiB out) before the check
ZSTD_INPUT = 4096


def _zstandard(where: str) -> Any:
    try:
        import zstandard
    except ImportError:
        raise InputError(
            [
                error(
                    "a .zst trace needs the zstandard package, which is not installed",
                    where=where,
                    hint="install rulekit's zstd extra: pip install 'rulekit[zstd]' "
                    "(or pip install zstandard), or write FILE.jsonl.gz (gzip needs nothing)",
                )
            ]
        ) from None
    return zstandard


class _Reads(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def _read_limited(stream: _Reads) -> bytes:
    """All of a decompressing stream, or MAX_TRACE_BYTES + 1 bytes if it holds more: a
    reader's read(n) may return less than n before the end, so read until it says end."""
    parts: list[bytes] = []
    size = 0
    while size <= MAX_TRACE_BYTES:
        part = stream.read(min(CHUNK, MAX_TRACE_BYTES + 1 - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def _read_zstd(zstandard: Any, raw: IO[bytes]) -> bytes:
    """All the frames of a zstd file (a file compressed afterwards, or two files joined,
    may hold several), or MAX_TRACE_BYTES + 1 bytes if they hold more. zstandard's stream
    reader returns nothing at all for a cut frame, so a file that ends inside a frame is
    refused here: a trace cut short must not replay as an empty one."""
    parts: list[bytes] = []
    size = 0
    frame = zstandard.ZstdDecompressor().decompressobj()
    inside = False  # part of a frame has been fed and its end not yet seen
    while size <= MAX_TRACE_BYTES:
        data = raw.read(ZSTD_INPUT)
        if not data:
            break
        while data and size <= MAX_TRACE_BYTES:
            part = frame.decompress(data)
            parts.append(part)
            size += len(part)
            if frame.eof:  # the next frame, if any, starts in what this one left
                data = frame.unused_data
                frame = zstandard.ZstdDecompressor().decompressobj()
                inside = False
            else:
                data, inside = b"", True
    if inside and size <= MAX_TRACE_BYTES:
        raise EOFError("the file ends inside a zstd frame: it was cut short")
    return b"".join(parts)[: MAX_TRACE_BYTES + 1]


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
    # asked before the try below, whose catch-all would call a missing package "damaged"
    zstandard = None if head.startswith(GZIP_MAGIC) else _zstandard("replay")
    try:
        if zstandard is None:
            with gzip.open(path, "rb") as stream:
                data = _read_limited(stream)
        else:
            with open(path, "rb") as raw:
                data = _read_zstd(zstandard, raw)
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
