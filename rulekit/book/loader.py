"""Loading a rulebook: its directory, entry file and includes, into one namespace."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from rulekit import bundled
from rulekit.book.rulebook import DECL_KINDS, Rulebook
from rulekit.book.variants import Overlay, copy_book
from rulekit.errors import (
    MAX_INCLUDE_DEPTH,
    Diagnostic,
    InputError,
    RulebookInvalid,
    Sources,
    did_you_mean,
    error,
    read_text,
    suggest,
)
from rulekit.language import nodes as n
from rulekit.language.cache import cached_parse
from rulekit.language.parser import parse

ENTRY = "rulebook.rk"

D = TypeVar("D")

# How a file becomes text and nodes: (absolute path, the path messages name) -> (text, module).
# The default reads the disk through the parse cache; the language server gives the
# editor's unsaved texts, parsed incrementally.
FileReader = Callable[[Path, str], tuple[str, n.Module]]


def read_file(path: Path, shown: str) -> tuple[str, n.Module]:
    text = read_text(path, shown)
    return text, cached_parse(text, shown, parse)


def shown_path(path: Path) -> str:
    """How a file is named in messages: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


VARIANT_DIRS = ("editions", "variants")


def inside(path: Path, folder: Path, shown: str) -> Path:
    """``path`` with its links followed, when that stays inside ``folder``: a file of a
    rulebook that is a link to a file elsewhere is refused like an include that leaves it
    (a rulebook a user was sent reads nothing else, and no error prints another file's
    line)."""
    real = path.resolve()
    if not real.is_relative_to(folder.resolve()):
        raise InputError(
            [
                error(
                    f"'{shown}' is a link to a file outside the rulebook's folder",
                    where=shown,
                    hint=f"the files of a rulebook are inside {shown_path(folder)}: "
                    "copy the file in instead of linking to it",
                )
            ]
        )
    return real


def variant_file(arg: str) -> Path:
    """``DIR@NAME`` -> the variant file DIR/editions/NAME.rk (or DIR/variants/NAME.rk)."""
    base, name = arg.rsplit("@", 1)
    root = bundled.rulebook(base) or Path(base)
    for folder in VARIANT_DIRS:
        path = root / folder / f"{name}.rk"
        if path.is_file():
            return inside(path, root, shown_path(path))
    known = sorted(p.stem for folder in VARIANT_DIRS for p in (root / folder).glob("*.rk"))
    hint = did_you_mean(name, known) or (
        f"its variants are: {', '.join(known)}" if known else f"{base} has no variants"
    )
    raise InputError([error(f"no variant '{name}' of '{base}'", where="RULEBOOK", hint=hint)])


def resolve_rulebook_path(arg: str) -> tuple[Path, Path]:
    """``RULEBOOK`` on the command line -> (root directory, entry file)."""
    if "@" in arg:
        entry = variant_file(arg).resolve()
        return entry.parent, entry
    path = bundled.rulebook(arg) or Path(arg)
    if path.is_dir():
        entry = path / ENTRY
        if not entry.is_file():
            rk = sorted(p.name for p in path.glob("*.rk"))
            listing = f"this directory has: {', '.join(rk)}" if rk else "create rulebook.rk in it"
            raise InputError([error(f"'{arg}' has no {ENTRY}", where="RULEBOOK", hint=listing)])
        return path.resolve(), inside(entry, path, shown_path(entry))
    if path.is_file():
        return path.resolve().parent, path.resolve()
    parent = path.parent if str(path.parent) else Path(".")
    hint: str | None = None
    if parent.is_dir():
        best = suggest(path.name, [p.name for p in parent.iterdir()])
        if best:
            hint = f"did you mean '{parent / best}'?"
    if hint is None and "/" not in arg:
        hint = did_you_mean(arg, list(bundled.rulebooks())) or "`rulekit rulebooks` lists them"
    raise InputError([error(f"no rulebook at '{arg}'", where="RULEBOOK", hint=hint)])


# Types (enums, kinds, records) and values (state, tables, procedures...) have separate
# namespaces, so "war_period" can be both the enum and the state holding the current one.
# Markers are both a type and a value. Dice have their own namespace.
_TYPES = ["enums", "kinds", "records", "markers"]
_VALUES = ["markers", "tracks", "states", "consts", "tables", "modifiers", "procedures"]


def _spaces(attr: str) -> list[str]:
    if attr == "dice":
        return ["dice"]
    if attr == "markers":
        return sorted(set(_TYPES + _VALUES))
    return _TYPES if attr in _TYPES else _VALUES


_CHANGES = (
    n.Replace,
    n.Remove,
    n.SetCells,
    n.SetSetting,
    n.ModifierChange,
    n.PhaseChange,
    n.UseOption,
)


def rulebook_home(arg: str) -> Path:
    """The folder the rulebook the user named is confined to: a variant's base, and every
    file either reads, must be inside it. ``DIR`` and ``DIR@NAME``: DIR. A file named
    directly: its folder, or the folder above when it is a variant file of a rulebook's
    ``editions/`` or ``variants/`` (``DIR/editions/v.rk`` extends ``DIR``). A rulebook's own
    entry file is never such a variant file: a rulebook sent as a folder named ``editions/``
    cannot reach the folders beside it."""
    base = arg.rsplit("@", 1)[0] if "@" in arg else arg
    path = bundled.rulebook(base) or Path(base)
    if "@" in arg or path.is_dir():
        return path.resolve()
    folder = path.absolute().parent
    if folder.name in VARIANT_DIRS and path.name != ENTRY:
        folder = folder.parent
    return folder.resolve()


class _Loader:
    def __init__(
        self,
        root: Path,
        sources: Sources | None = None,
        read: FileReader = read_file,
        home: Path | None = None,
    ) -> None:
        self.root = root
        # the folder of the rulebook the user named: a variant's base stays inside it
        self.home = home if home is not None else root
        self.read = read
        self.sources = sources if sources is not None else Sources()
        self.errors: list[Diagnostic] = []
        self.seen: set[Path] = set()

    def load(self, entry: Path, stack: tuple[Path, ...] = ()) -> Rulebook:
        """A rulebook from its entry file, or a variant file applied to its base."""
        module = self._parse(entry)
        header = module.decls[0] if module.decls else None
        if isinstance(header, n.VariantHeader):
            return self._variant(entry, module, header, stack)
        book = Rulebook(self.root, entry, self.sources)
        self._load_module(entry, module, book, stack=[])
        if self.errors:
            raise RulebookInvalid(self.errors)
        return book

    def _parse(self, path: Path) -> n.Module:
        self.seen.add(path)
        shown = self._rel(path)
        text, module = self.read(path, shown)
        self.sources.add(shown, text)
        return module

    def _variant(
        self, path: Path, module: n.Module, header: n.VariantHeader, stack: tuple[Path, ...]
    ) -> Rulebook:
        target = (path.parent / header.base).resolve()
        # a variant names files of the rulebook the user named (rulebook_home), with its
        # links followed: a folder beside it is another rulebook, not this one's
        home = self.home
        if target.is_dir():
            target = (target / ENTRY).resolve()
        if not target.is_relative_to(home.resolve()):
            raise RulebookInvalid(
                [
                    error(
                        f"the variant extends '{header.base}', which is outside its rulebook",
                        header.span,
                        hint=f"a variant extends a rulebook inside {self._rel(home)}",
                    )
                ]
            )
        if target in (*stack, path):
            chain = " -> ".join(self._rel(p) for p in (*stack, path, target))
            raise RulebookInvalid([error(f"variant cycle: {chain}", header.span)])
        if len(stack) > MAX_INCLUDE_DEPTH:
            raise RulebookInvalid(
                [error(f"variants extend variants more than {MAX_INCLUDE_DEPTH} deep", header.span)]
            )
        if not target.is_file():
            raise RulebookInvalid(
                [error(f"the variant extends '{header.base}', which is not there", header.span)]
            )
        base = _Loader(target.parent, self.sources, self.read, self.home).load(
            target, (*stack, path)
        )
        book = copy_book(base)
        book.files.append(self._rel(path))
        book.variants.append(header.name)
        book.edition = header.edition or book.edition
        overlay = Overlay(book)
        for decl in module.decls[1:]:
            if isinstance(decl, _CHANGES):
                overlay.apply(decl)
            elif isinstance(decl, n.Include):
                self.errors.append(error("a variant file cannot include files", decl.span))
            else:
                self._declare(decl, book)  # a declaration of its own: an addition
        self.errors.extend(overlay.errors)
        if self.errors:
            raise RulebookInvalid(self.errors)
        return book

    def _rel(self, path: Path) -> str:
        return shown_path(path)

    def _load_file(self, path: Path, book: Rulebook, stack: list[Path]) -> None:
        self._load_module(path, self._parse(path), book, stack)

    def _load_module(self, path: Path, module: n.Module, book: Rulebook, stack: list[Path]) -> None:
        book.files.append(self._rel(path))
        for decl in module.decls:
            if isinstance(decl, n.Include):
                self._include(decl, path, book, [*stack, path])
            else:
                self._declare(decl, book)

    def _include(self, inc: n.Include, path: Path, book: Rulebook, stack: list[Path]) -> None:
        target = (path.parent / inc.path).resolve()
        try:
            target.relative_to(self.root)
        except ValueError:
            self.errors.append(
                error(
                    f"include '{inc.path}' leaves the rulebook directory",
                    inc.span,
                    hint=f"rulebook files must be inside {self._rel(self.root)}",
                )
            )
            return
        if target in stack:
            chain = " -> ".join(self._rel(p) for p in [*stack[stack.index(target) :], target])
            self.errors.append(error(f"include cycle: {chain}", inc.span))
            return
        if len(stack) > MAX_INCLUDE_DEPTH:
            self.errors.append(
                error(
                    f"files include files more than {MAX_INCLUDE_DEPTH} deep",
                    inc.span,
                    hint="include the files from the rulebook's entry file instead",
                )
            )
            return
        try:
            is_file = target.is_file()
        except OSError as exc:  # a name too long for the system, say: an error at the include
            self.errors.append(error(f"cannot read included file: {exc.strerror or exc}", inc.span))
            return
        if not is_file:
            known = [self._rel_to_parent(p, path) for p in self.root.rglob("*.rk")]
            best = suggest(inc.path, known)
            self.errors.append(
                error(
                    f"included file '{inc.path}' does not exist",
                    inc.span,
                    hint=f"did you mean '{best}'?" if best else None,
                )
            )
            return
        if target in self.seen:
            return  # included twice along different paths: its declarations are already in
        self._load_file(target, book, stack)

    def _rel_to_parent(self, p: Path, including: Path) -> str:
        return os.path.relpath(p, including.parent)

    def _declare(self, decl: n.Decl, book: Rulebook) -> None:
        if isinstance(decl, n.RulebookHeader):
            if not book.name:
                book.name, book.edition = decl.name, decl.edition
                book.default_scenario = decl.scenario
                if decl.scenario is not None and not plain_name(decl.scenario):
                    self.errors.append(
                        error(
                            f"scenario '{decl.scenario}' is not the name of a scenario",
                            decl.span,
                            hint="name a file of the rulebook's scenarios/ folder "
                            "without its .toml (no path)",
                        )
                    )
                    book.default_scenario = None
            return
        if isinstance(decl, n.Rounding):
            if book.rounding is not None:
                self._duplicate("rounding", decl.span, book.rounding.span)
            book.rounding = decl
            return
        if isinstance(decl, n.VariantHeader):
            self.errors.append(
                error(
                    "a variant header starts a variant file of its own",
                    decl.span,
                    hint="a rulebook's files cannot be variants; load the variant file itself",
                )
            )
            return
        if isinstance(decl, _CHANGES):
            self.errors.append(
                error(
                    "a change belongs in a variant file or an option block",
                    decl.span,
                    hint='start a variant file with: variant "NAME" extends "PATH"',
                )
            )
            return
        if isinstance(decl, n.OptionDecl):
            if decl.name in book.options:
                self._duplicate(f"option {decl.name}", decl.span, book.options[decl.name].span)
            book.options[decl.name] = decl
            return
        if isinstance(decl, n.ViewDecl):
            if decl.key in book.views:
                self._duplicate(f"view {decl.key}", decl.span, book.views[decl.key].span)
            book.views[decl.key] = decl
            return
        if isinstance(decl, n.HiddenDecl):
            book.hidden.append(decl)
            return
        if isinstance(decl, n.SequenceDecl):
            if decl.name in book.sequences:
                self._duplicate(f"sequence {decl.name}", decl.span, book.sequences[decl.name].span)
            book.sequences[decl.name] = decl
            return
        attr = DECL_KINDS[type(decl)]
        name = decl.name  # type: ignore[union-attr]
        for space in _spaces(attr):
            existing = getattr(book, space).get(name)
            if existing is not None:
                self._duplicate(name, decl.span, existing.span)
                return
        getattr(book, attr)[name] = decl

    def _duplicate(self, name: str, span: n.Span, first: n.Span) -> None:
        self.errors.append(
            error(f"'{name}' is defined twice", span, hint=f"first defined at {first}")
        )


def plain_name(name: str) -> bool:
    """A file name of one folder: no path, nothing hidden, so it stays in that folder."""
    if not name or name.startswith(".") or name.endswith(".toml"):
        return False
    return not any(c in name for c in "/\\:\0")


def load_rulebook(arg: str, options: Sequence[str] = (), read: FileReader = read_file) -> Rulebook:
    """Read and parse a rulebook or variant (not yet checked), with options switched on;
    ``read`` gives each file's text and nodes (by default from the disk)."""
    root, entry = resolve_rulebook_path(arg)
    book = _Loader(root, read=read, home=rulebook_home(arg)).load(entry)
    if options:
        overlay = Overlay(book)
        for name in options:
            overlay.use_option(name, None, where=f"--option {name}")
        if overlay.errors:
            raise RulebookInvalid(overlay.errors)
    return book
