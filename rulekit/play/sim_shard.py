"""One shard of a simulation: a range of seeds played in a worker, summarized there.

This is the code every scheduler runs (a local process, a Dask worker on this machine or on
another one): a shard is described by plain data and returns plain data, so it pickles.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from attrs import define

from rulekit.book.checker import Checked, load
from rulekit.errors import RulekitError
from rulekit.play.runner import new_game
from rulekit.play.sim_summary import NOT_OVER, Failure, Partial, ending_group

# A rulebook sent to remote workers is at most this big: a folder larger than any rulebook
# (a home directory given by mistake) is refused on the client, not copied to every worker.
MAX_SHIPPED_FILES = 2_000
MAX_SHIPPED_BYTES = 20 * 1024 * 1024
SHIPPED_SUFFIXES = (".rk", ".toml")


@define(frozen=True)
class Shipped:
    """A rulebook's folder as data: its ``.rk`` and ``.toml`` files by relative path, and
    the command line's ``RULEBOOK`` relative to that folder (``rulebook.rk``, ``@1.1``)."""

    files: tuple[tuple[str, str], ...]
    arg: str
    digest: str
    shown: str = ""  # the folder as the client named it, for the places errors point at


def pack_rulebook(rulebook: str) -> Shipped:
    """The folder ``rulebook`` lives in, packed to travel with each shard, so workers on
    other machines (or in other folders) play the client's rulebook, relative path or not."""
    import hashlib
    from pathlib import Path

    from rulekit.book.loader import VARIANT_DIRS, resolve_rulebook_path
    from rulekit.errors import InputError, error

    base, at, variant = rulebook.partition("@")
    root, entry = resolve_rulebook_path(rulebook)
    if at:  # DIR@VARIANT: the variant lives in DIR/editions/ and extends DIR
        root = Path(base).resolve()
        arg, shown = "@" + variant, base
    else:
        shown = base if Path(base).is_dir() else str(Path(base).parent)
        if root.name in VARIANT_DIRS:  # a variant file named directly extends its parent
            root = root.parent
            shown = str(Path(shown).parent)
        arg = "" if Path(base).is_dir() else str(entry.relative_to(root))
    files = []
    size = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in SHIPPED_SUFFIXES or not path.is_file():
            continue
        if not path.resolve().is_relative_to(root.resolve()):
            continue  # a link out of the rulebook's folder: never read, never shipped
        text = path.read_text(encoding="utf-8")
        size += len(text)
        files.append((str(path.relative_to(root)), text))
        if len(files) > MAX_SHIPPED_FILES or size > MAX_SHIPPED_BYTES:
            raise InputError(
                [
                    error(
                        f"the rulebook's folder {root} is too big to send to the workers",
                        where="--scheduler",
                        hint="give the rulebook's own folder, or a path every worker can read",
                    )
                ]
            )
    digest = hashlib.sha256(repr((files, arg)).encode("utf-8")).hexdigest()[:16]
    return Shipped(tuple(files), arg, digest, shown)


# Where this worker unpacked each shipped rulebook (by digest): a private folder of its own
# (mkdtemp: mode 0700, a new name), never a shared path another user could plant files in.
_UNPACKED: dict[str, str] = {}


def unpack_rulebook(shipped: Shipped) -> str:
    """The ``RULEBOOK`` argument of a shipped rulebook, unpacked once per worker."""
    import tempfile
    from pathlib import Path

    if shipped.digest not in _UNPACKED:
        root = Path(tempfile.mkdtemp(prefix="rulekit-rulebook-"))
        for name, text in shipped.files:
            target = (root / name).resolve()
            if not target.is_relative_to(root.resolve()):
                continue  # a name that would leave the folder: never written
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        _UNPACKED[shipped.digest] = str(root)
    root_arg = _UNPACKED[shipped.digest]
    if shipped.arg.startswith("@"):
        return root_arg + shipped.arg
    return str(Path(root_arg) / shipped.arg) if shipped.arg else root_arg


@define(frozen=True)
class Shard:
    """Seeds ``start`` up to (not including) ``stop`` of one simulation."""

    rulebook: str
    options: tuple[str, ...]
    scenario: str | None
    policy: str
    turns: int | None
    start: int
    stop: int
    rows: bool  # also return one row per game (for --out and --csv)
    max_steps: int | None = None  # each turn's step budget (None: the engine's default)
    # the rulebook's files, sent with the shard to a cluster whose workers do not share the
    # client's folders (``--scheduler tcp://``): see :func:`pack_rulebook`
    shipped: Shipped | None = None

    @property
    def games(self) -> int:
        return self.stop - self.start


@define
class ShardResult:
    start: int
    stop: int
    partial: Partial
    rows: list[dict[str, Any]] | None
    seconds: float


# A worker loads each rulebook once and keeps it for the shards that follow.
_LOADED: dict[tuple[str, tuple[str, ...]], Checked] = {}


def _checked(rulebook: str, options: tuple[str, ...]) -> Checked:
    key = (rulebook, options)
    if key not in _LOADED:
        _LOADED[key] = load(rulebook, options)
    return _LOADED[key]


def failure_of(seed: int, exc: Exception) -> Failure:
    """What went wrong, pointing at the rulebook line and rule when the rulebook failed."""
    if isinstance(exc, RulekitError) and exc.diagnostics:
        diag = exc.diagnostics[0]
        rule = diag.rule.text if diag.rule is not None else None
        return Failure(seed, diag.location, diag.message, rule, diag.context)
    # not the rulebook's fault: still one failed game, not a failed run
    return Failure(seed, "rulekit", f"internal error: {type(exc).__name__}: {exc}")


# A Dask worker runs tasks in threads (`dask worker` starts one per core unless told
# `--nthreads 1`), and the parser's state is not shared safely between threads: two shards
# loading a rulebook at once failed with syntax errors that are not in it. Shards of one
# process take turns; games are pure Python, so under the GIL threads lose no speed by it.
_ONE_SHARD_AT_A_TIME = threading.Lock()


def play_shard(shard: Shard) -> ShardResult:
    """Play every seed of the shard; a game that fails is recorded and the others go on."""
    with _ONE_SHARD_AT_A_TIME:
        return _play_shard(shard)


def _play_shard(shard: Shard) -> ShardResult:
    began = time.perf_counter()
    rulebook = unpack_rulebook(shard.shipped) if shard.shipped else shard.rulebook
    checked = _checked(rulebook, shard.options)
    partial = Partial()
    rows: list[dict[str, Any]] | None = [] if shard.rows else None
    for seed in range(shard.start, shard.stop):
        try:
            game = new_game(checked, shard.scenario, seed, shard.policy)
            game.interp.mute()  # untraced: a game is summed up by its outcome alone
            if shard.max_steps is not None:
                game.interp.set_budget(shard.max_steps)
            result = game.play(shard.turns)
        except Exception as exc:  # one game's error must not end the study
            failure = failure_of(seed, exc)
            partial.add_failure(failure)
            if rows is not None:
                rows.append({"seed": seed, "error": failure.line().split(": ", 1)[1]})
            continue
        partial.add_game(result.turns, result.ended, result.final)
        if rows is not None:
            ending = result.ended or NOT_OVER
            row = {"seed": seed, "turns": result.turns, "ending": ending}
            row["group"] = ending_group(ending)
            row.update(result.final)
            rows.append(row)
    done = ShardResult(shard.start, shard.stop, partial, rows, time.perf_counter() - began)
    return _as_the_client_named_it(done, shard.shipped) if shard.shipped else done


def _as_the_client_named_it(result: ShardResult, shipped: Shipped) -> ShardResult:
    """A failure in a shipped rulebook points at the file as the client named it (``mybook/
    rulebook.rk:11:5``), not at the worker's private copy: the same result as played there."""
    unpacked = _UNPACKED[shipped.digest]
    shown = "" if shipped.shown in ("", ".") else shipped.shown.rstrip("/\\") + "/"

    def moved(text: str) -> str:
        return text.replace(unpacked + "/", shown)

    for failure in result.partial.failures:
        failure.location = moved(failure.location)
        failure.context = moved(failure.context) if failure.context else failure.context
        failure.message = moved(failure.message)
    for row in result.rows or []:
        if isinstance(row.get("error"), str):
            row["error"] = moved(row["error"])
    return result
