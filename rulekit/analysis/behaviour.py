"""Behavioural differences: outcome distributions of the same question before and after.

Compared automatically: every changed table with its own roll, for each row of its other
dimensions; every procedure that changed or reads something that changed, when it can be
run without a situation (its inputs are all enums or yes/no), for each combination of
inputs, and in every situation a changed table's dimensions name: a dimension whose type is
an enum that a state variable holds (Silent War's War Period) is varied over its members.
Asked for: ``--probe NAME`` with ``--given``/``--at``/``--of``. Each is worked out exactly
with :mod:`rulekit.analysis.prob` (a procedure by its situations); beyond the budgets, by
seeded sampling with 95% confidence intervals. The largest shifts come first.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import islice, product
from typing import Any

import attrs
from attrs import define, field

from rulekit.analysis.diff import Change, switched_consts
from rulekit.analysis.prob import Distribution, TooManyPaths, ask, exact, sampled
from rulekit.analysis.situations import TooManySituations
from rulekit.book import types as t
from rulekit.book.checker import Checked
from rulekit.book.inputs import find_target
from rulekit.engine.values import show
from rulekit.errors import InputError, RulekitError
from rulekit.language import nodes as n
from rulekit.limits import DEFAULT_STEP_BUDGET

MAX_INPUTS = 48  # input combinations compared per table or procedure
MAX_PATHS = 5_000  # beyond this, sample
MAX_SITUATIONS = 5_000  # beyond this, sample
SAMPLES = 2_000
# What `diff` finds by itself (every table and procedure of the rulebook, at up to
# MAX_INPUTS inputs each) is a survey: it gets smaller budgets than a probe the user asks
# for, counted (never timed, so the output is the same on every machine). A procedure
# that draws at random (Silent War's War Mix sort [3.11]) has more situations than any
# budget and a run of it costs milliseconds: 2,000 samples of eight of them took 90 s.
SURVEY_SITUATIONS = 1_000
SURVEY_SAMPLES = 200


@define
class Probe:
    """A question to put to both rulebooks: a target and its inputs."""

    name: str
    at: list[str] = field(factory=list)
    given: str | None = None
    of: str | None = None
    decide: list[str] = field(factory=list)

    @property
    def label(self) -> str:
        parts = [self.name, *self.at]
        if self.given:
            parts.append(f"--given {self.given}")
        if self.of:
            parts.append(f"--of {self.of!r}")
        return " ".join(parts)


@define
class Row:
    """One result's probability before and after (None: not a result there); ``ci`` is the
    half width of a 95% interval for the difference when sampled."""

    value: str
    old: Fraction | None
    new: Fraction | None
    ci: float | None = None

    @property
    def differs(self) -> bool:
        shift = abs(float((self.new or 0) - (self.old or 0)))
        return shift > (self.ci or 0) if self.ci is not None else self.old != self.new


@define
class Comparison:
    """The distributions of one probe in both rulebooks."""

    probe: Probe
    exact: bool
    rows: list[Row]
    mean_old: Fraction | None = None
    mean_new: Fraction | None = None
    mean_ci: float | None = None  # half width of a 95% interval for the shift, when sampled
    note: str = ""
    provisional: str = ""  # which side used values the rules do not print

    @property
    def differs(self) -> bool:
        return bool(self.note) or any(r.differs for r in self.rows)

    @property
    def shift(self) -> float:
        """The largest change of one result's probability (1 when one side cannot run)."""
        if self.note:
            return 1.0
        return max((abs(float((r.new or 0) - (r.old or 0))) for r in self.rows), default=0.0)


@define
class Behaviour:
    """What was compared, and what could not be."""

    comparisons: list[Comparison] = field(factory=list)
    skipped: list[str] = field(factory=list)


def compare_behaviour(
    old: Checked,
    new: Checked,
    changes: list[Change],
    probes: list[Probe],
    seed: int = 1,
    state: list[str] | None = None,
    max_steps: int = DEFAULT_STEP_BUDGET,
) -> Behaviour:
    """Compare the probes, or else what changed, with ``state`` (NAME=VALUE) set first."""
    out = Behaviour()
    for probe in probes:
        _askable(old, new, probe)
    wanted = list(probes) or [
        attrs.evolve(p, at=[*(state or []), *p.at])
        for p in _automatic(old, new, changes, out.skipped)
    ]
    for probe in wanted:
        comparison = _compare(old, new, probe, seed, max_steps, asked=bool(probes))
        if comparison is not None and (comparison.differs or probes):
            out.comparisons.append(comparison)
    if not probes:  # what changed most first; asked probes stay in the order asked
        out.comparisons.sort(key=lambda c: -c.shift)
    return out


def _askable(old: Checked, new: Checked, probe: Probe) -> None:
    """A probe that neither rulebook can ask (a mistyped name, an --of that does not parse
    or names nothing, a --given that does not fit) is the user's mistake: its error is
    raised, not dropped. Asked in one rulebook only, it is a difference, compared later."""
    try:
        find_target(new, probe.name, ("procedure", "table", "modifiers"))
    except InputError:
        find_target(old, probe.name, ("procedure", "table", "modifiers"))
    first: RulekitError | None = None
    for checked in (new, old):
        try:
            ask(
                checked,
                probe.name,
                given=probe.given,
                at=probe.at,
                decide=probe.decide,
                of=probe.of,
            )
            return
        except RulekitError as exc:
            first = first or exc
    assert first is not None
    raise first


# ---- what to compare ------------------------------------------------------------------------


def _automatic(
    old: Checked, new: Checked, changes: list[Change], skipped: list[str]
) -> list[Probe]:
    probes: list[Probe] = []
    changed = {c.name for c in changes if c.what == "changed"}
    changed |= switched_consts(old.book, new.book)  # what a switched option set
    tables = [c.name for c in changes if c.kind == "table" and c.what == "changed"]
    for name in tables:
        probes.extend(_table_probes(new, name))
    situations = _situations(new, tables)
    for name, decl in new.book.procedures.items():
        if name not in old.book.procedures:
            continue
        if name not in changed and not (_names_in(decl) & changed):
            continue
        combos = _inputs(new, decl)
        if combos is None:
            needs = ", ".join(f"{p.name}" for p in decl.params if p.default is None)
            skipped.append(f"procedure {name}: needs a situation ({needs}); use --probe")
            continue
        reads = _names_in(decl)
        varied = [s for s in situations if s[0].split("=")[0] in reads] or [[]]
        every = [[*at, *where] for at in combos for where in varied]
        # as many input combinations as without situations, in each of them
        probes.extend(Probe(name, at) for at in islice(every, MAX_INPUTS * len(varied)))
    return probes


def _situations(checked: Checked, tables: list[str]) -> list[list[str]]:
    """The state a changed table's dimensions name: each state variable whose type is a
    dimension's enum, at each of its members (``war_period=WP1`` ... ``WP4``)."""
    enums = {
        d.type.name
        for name in tables
        if name in checked.tables
        for d in checked.tables[name].dims
        if isinstance(d.type, t.EnumT)
    }
    out: list[list[str]] = []
    for var, typ in checked.globals.items():
        if var in checked.book.states and isinstance(typ, t.EnumT) and typ.name in enums:
            out.extend([f"{var}={m.name}"] for m in checked.book.enums[typ.name].members)
    return out


def _table_probes(checked: Checked, name: str) -> list[Probe]:
    table = checked.tables[name]
    if not any(d.kind == "roll" for d in table.dims):
        return []  # its cells are its behaviour: the structural diff shows them
    rows: dict[tuple[str, ...], None] = {}
    for keys, _ in table.items():
        rows.setdefault(
            tuple(
                f"{d.name}={k.printed}"
                for d, k in zip(table.dims, keys, strict=True)
                if d.kind != "roll"
            ),
            None,
        )
    return [Probe(name, list(at)) for at in islice(rows, MAX_INPUTS)]


def _inputs(checked: Checked, decl: n.ProcedureDecl) -> list[list[str]] | None:
    """Every combination of a procedure's required inputs, if they are all enums or bools."""
    domains: list[list[str]] = []
    for param in decl.params:
        if param.default is not None:
            continue
        if param.type is None:
            return None
        typ = checked.vocab.type_of(param.type)
        if typ == t.BOOL:
            domains.append([f"{param.name}=yes", f"{param.name}=no"])
        elif isinstance(typ, t.EnumT):
            members = [m.name for m in checked.book.enums[typ.name].members]
            domains.append([f"{param.name}={m}" for m in members])
        else:
            return None
    return [list(combo) for combo in islice(product(*domains), MAX_INPUTS)]


def _names_in(node: Any) -> set[str]:
    """Every name a declaration reads or calls."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, n.Name):
            found.add(item.id)
        elif isinstance(item, n.Call):
            found.add(item.func)
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif attrs.has(type(item)):
            stack.extend(getattr(item, f.name) for f in attrs.fields(type(item)))
    return found


# ---- running both ---------------------------------------------------------------------------


def _distribution(
    checked: Checked, probe: Probe, seed: int, max_steps: int, asked: bool = True
) -> Distribution | str:
    situations = MAX_SITUATIONS if asked else SURVEY_SITUATIONS
    samples = SAMPLES if asked else SURVEY_SAMPLES
    try:
        question = ask(
            checked, probe.name, given=probe.given, at=probe.at, decide=probe.decide, of=probe.of
        )
        try:
            return exact(checked, question, MAX_PATHS, max_steps, max_situations=situations)
        except (TooManyPaths, TooManySituations):
            return sampled(checked, question, samples, seed, max_steps)
    except RulekitError as exc:
        return f"error: {exc.diagnostics[0].message}"


def _variance(d: Distribution) -> float:
    mean = d.mean
    assert mean is not None
    return sum(float(o.p) * (float(o.value) - float(mean)) ** 2 for o in d.outcomes)


def _compare(
    old: Checked, new: Checked, probe: Probe, seed: int, max_steps: int, asked: bool = False
) -> Comparison | None:
    a = _distribution(old, probe, seed, max_steps, asked)
    b = _distribution(new, probe, seed, max_steps, asked)
    if isinstance(a, str) and isinstance(b, str):
        if asked or "stopped after" in a or "stopped after" in b:  # the user asked: say why
            return Comparison(probe, False, [], note=f"not compared: {b}")
        return None  # not a question either rulebook can answer: nothing to compare
    if isinstance(a, str) or isinstance(b, str):
        note = f"before: {a if isinstance(a, str) else 'runs'}; after: "
        note += b if isinstance(b, str) else "runs"
        return Comparison(probe, True, [], note=note)
    values: dict[str, list[Fraction | None]] = {}
    for o in a.outcomes:
        values.setdefault(show(o.value), [None, None])[0] = o.p
    for o in b.outcomes:
        values.setdefault(show(o.value), [None, None])[1] = o.p
    both_exact = a.exact and b.exact
    rows = []
    for value, (pa, pb) in values.items():
        ci = None
        if not both_exact:  # an exact side has no sampling error
            x, y = float(pa or 0), float(pb or 0)
            var = (0 if a.exact else x * (1 - x) / a.samples) + (
                0 if b.exact else y * (1 - y) / b.samples
            )
            ci = 1.96 * math.sqrt(var)
        rows.append(Row(value, pa, pb, ci))
    mean_ci = None
    if not both_exact and a.mean is not None and b.mean is not None:
        var = (0 if a.exact else _variance(a) / a.samples) + (
            0 if b.exact else _variance(b) / b.samples
        )
        mean_ci = 1.96 * math.sqrt(var)
    sides = [side for side, d in (("before", a), ("after", b)) if d.provisional_used]
    provisional = " and ".join(sides)
    return Comparison(probe, both_exact, rows, a.mean, b.mean, mean_ci, "", provisional)
