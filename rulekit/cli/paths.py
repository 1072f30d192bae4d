"""Paths on the command line: a file to write, checked before the work; a trace's rulebook."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from rulekit import bundled
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


def held_for(path: str, flag: str) -> None:
    """Before a command plays a game it will save: ``path`` can be written, and no other run
    is saving to it (a lock held until the command ends: click closes it)."""
    writable(path, flag)
    click.get_current_context().with_resource(held(path, flag))


@contextlib.contextmanager
def held(path: str, flag: str) -> Iterator[None]:
    """One run at a time writes ``path``: a lock on a file beside it, held while the game is
    played and saved (the system drops it when the process ends, killed or not). A second
    run naming the same file refuses at once, before playing a game that would be lost."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock, as before
        yield
        return
    target = Path(path).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.parent / f".{target.name}.lock"
    handle: IO[str] = open(lock_path, "a", encoding="utf-8")  # noqa: SIM115 - closed below
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise InputError(
                [
                    error(
                        f"another rulekit run is saving to '{path}'",
                        where=flag,
                        hint="wait for it to end, or save this game under another name",
                    )
                ]
            ) from None
        try:
            yield
        finally:
            # removed while still held, so that only the save stays beside the game (a run
            # killed before this leaves the empty file: the next run locks it as usual)
            with contextlib.suppress(OSError):
                lock_path.unlink()
    finally:
        handle.close()  # the lock goes with it


def save_or_rescue(path: str, flag: str, write: Callable[[str], None]) -> str:
    """Write with ``write(path)``; when that fails (a full disk, a folder gone), write the
    same game into the temporary folder and say where, rather than lose the turns played.
    The path written is returned."""
    try:
        write(path)
        return path
    except OSError as exc:
        reason = exc.strerror or str(exc)
    fd, rescue = tempfile.mkstemp(prefix=f"rulekit-{Path(path).stem}-", suffix=".toml")
    os.close(fd)
    try:
        write(rescue)
    except OSError as again:
        with contextlib.suppress(OSError):
            os.unlink(rescue)
        raise InputError(
            [
                error(
                    f"cannot write '{path}' ({reason}), nor a copy in the temporary folder "
                    f"({again.strerror or again}): the game is lost",
                    where=flag,
                )
            ]
        ) from None
    raise InputError(
        [
            error(
                f"cannot write '{path}': {reason}; the game is saved in '{rescue}' instead",
                where=flag,
                hint=f"free some space, then move it: mv '{rescue}' '{path}'",
            )
        ]
    )


def traced_rulebook(header: dict[str, Any], trace: str) -> str:
    """The rulebook a trace was recorded with, when the user did not name one: by the
    absolute path it stores (so a replay works from any directory), else as it was given
    (traces of older rulekits); used only when it is one of rulekit's own rulebooks or the
    user confirms it (``recorded_rulebook``)."""
    rulebook = str(header.get("rulebook_path", ""))
    if not Path(rulebook.partition("@")[0]).exists():
        rulebook = str(header.get("rulebook", ""))
    if (
        not Path(rulebook.partition("@")[0]).exists()
        and bundled.rulebook(rulebook.partition("@")[0]) is None
    ):
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
    return recorded_rulebook(rulebook, f"the trace '{trace}'", f"rulekit replay {trace} --rulebook")


def is_bundled(rulebook: str) -> bool:
    """Whether ``rulebook`` (DIR, FILE or DIR@VARIANT) is one of those that come with
    rulekit: by name, or by a path inside its own rulebooks/ or examples/ folders."""
    base = rulebook.partition("@")[0]
    if bundled.rulebook(base) is not None:
        return True
    home = bundled.root()
    if home is None or not base:
        return False
    real = Path(base).resolve()
    return any(real.is_relative_to((home / kind).resolve()) for kind in bundled.KINDS)


def recorded_rulebook(rulebook: str, named_in: str, command: str) -> str:
    """A rulebook path a file names (a trace, a play save), used only when the user would
    have named it: one of rulekit's own, or confirmed at a terminal. A file a user was sent
    does not make rulekit read a rulebook of its choosing elsewhere on the disk."""
    if is_bundled(rulebook):
        return rulebook
    question = f"{named_in} was played with the rulebook '{rulebook}': load it?"
    if sys.stdin.isatty() and click.confirm(question, default=False, err=True):
        return rulebook
    raise InputError(
        [
            error(
                f"{named_in} names the rulebook '{rulebook}', which you did not name",
                where="RULEBOOK",
                hint=f"a file's rulebook path is not followed: if that is the rulebook, "
                f"name it yourself: {command} {rulebook}",
            )
        ]
    )


def recorded_scenario(scenario: str, named_in: str) -> None:
    """A scenario file a play save names outside the rulebook's scenarios/: read only when
    the player confirms it at a terminal (a save a user was sent names the rulebook's own
    scenarios by name)."""
    question = f"{named_in} was played from the scenario file '{scenario}': read it?"
    if sys.stdin.isatty() and click.confirm(question, default=False, err=True):
        return
    raise InputError(
        [
            error(
                f"{named_in} names the scenario '{scenario}', which is not one of the "
                "rulebook's scenarios",
                where="--resume",
                hint="a save names a scenario of the rulebook's scenarios/ folder; to play "
                f"that file, start a new game from it: rulekit play RULEBOOK --scenario {scenario}",
            )
        ]
    )


def stopped_run(stop: KeyboardInterrupt, turn: int, save: str | None, kept: Any) -> NoReturn:
    """A run stopped by SIGTERM (exit 143) or Ctrl-C (130): the last whole turn is saved
    (atomically, as every save) when --save was given; one line says what is kept."""
    from rich.text import Text

    from rulekit.cli.show import err
    from rulekit.cli.simulate_cmd import Terminated
    from rulekit.play.saves import write_save

    how = "stopped (SIGTERM)" if isinstance(stop, Terminated) else "interrupted"
    if save and kept is not None:
        save_or_rescue(save, "--save", lambda path: write_save(path, kept))
        done = f"the game is saved in {save} as it was after turn {kept.turn}"
    else:
        done = "nothing is saved (--save FILE keeps the turns played)"
    err.print(Text(f"{how} in turn {turn}: {done}"))
    sys.exit(143 if isinstance(stop, Terminated) else 130)
