"""Decisions as generated code makes them (rulekit.engine.codegen writes the calls): the
options evaluated, the rulebook's default worked out off the record, the policy asked, the
choice checked against the options and traced, the local set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.engine.hidden import masked
from rulekit.engine.memo import CallMemo
from rulekit.engine.policy import DecisionRequest
from rulekit.engine.trace import DecisionEvent
from rulekit.engine.values import show, to_json, unwrap
from rulekit.language import nodes as n

if TYPE_CHECKING:
    from rulekit.engine.interpreter import Interpreter


class Suggestion:
    """A decision's default: the rulebook's advice (a generated function), worked out off
    the record. Its events are dropped, so they are not even made (``mute``) unless it may
    ask the policy, which may show the trace while it decides. When it can only compute
    (``remember``: rulekit.engine.reach.pure), the procedures it calls remember their
    results for as long as it runs (rulekit.engine.memo)."""

    __slots__ = ("code", "mute", "remember")

    def __init__(self, code: Callable[[Interpreter], Any], mute: bool, remember: bool) -> None:
        self.code, self.mute, self.remember = code, mute, remember

    def __call__(self, i: Interpreter) -> Any:
        mark, muted, memo = len(i.trace.events), i.muted, i.memo
        i.muted = muted or self.mute
        if self.remember:
            i.memo = CallMemo()
        try:
            return self.code(i)
        finally:
            i.muted, i.memo = muted, memo
            del i.trace.events[mark:]


class ChooseSite:
    __slots__ = ("name", "options_span", "span", "title")

    def __init__(self, name: str, title: str | None, span: n.Span, options_span: n.Span) -> None:
        self.name, self.title, self.span, self.options_span = name, title, span, options_span


def choose(
    i: Interpreter,
    site: ChooseSite,
    options: Any,
    default_of: Suggestion | None,
    side: Any = None,
) -> None:
    """``choose``, after its step: the options (and the side, ``by``) were evaluated first."""
    options = i._iterate(options, site.options_span)
    default = None
    if default_of is not None:
        # the advice is worked out on what the player can see: face-down pieces read as
        # their kinds' defaults (rulekit.engine.hidden)
        with masked(i, site):
            default = _default(i, default_of, options)
    decided(i, site.name, site.title, site.span, options, default, default_of is not None, side)


def _default(i: Interpreter, default_of: Suggestion, options: tuple[Any, ...]) -> Any:
    """The default, or the one an earlier run found after the same dice (Interpreter.defaults)."""
    memo = i.defaults
    if memo is None:
        return default_of(i)
    key = memo.key(i.decisions)
    if key in memo.known:
        return options[memo.known[key]]
    default = default_of(i)
    if memo.key(i.decisions) == key:  # threw no dice meanwhile
        index = next((k for k, o in enumerate(options) if o is default), None)
        if index is None:
            index = next((k for k, o in enumerate(options) if i._eq(default, o)), None)
        if index is not None:
            memo.known[key] = index
    return default


def decided(
    i: Interpreter,
    name: str,
    title: str | None,
    span: n.Span,
    options: tuple[Any, ...],
    default: Any,
    suggested: bool,
    side: Any = None,
) -> None:
    """A decision asked of the policy: the choice checked against the options, its event
    when traced, the local set."""
    i.decisions += 1
    rule = i.ref.text if i.ref else None
    request = DecisionRequest(
        name, options, default, rule, title, i._where(span), suggested, unwrap(side)
    )
    choice, by = i.policy.decide(request)
    index = next((k for k, o in enumerate(options) if o is choice), None)
    if index is None:
        index = next((k for k, o in enumerate(options) if i._eq(choice, o)), None)
    if index is None:
        raise i.fail(f"the policy chose {show(choice)}, which is not an option", span)
    if not i.muted:  # off the record: nobody reads the decision's event
        options_shown = [to_json(o) for o in options]
        i.trace.events.append(
            DecisionEvent(i.depth, name, options_shown, to_json(choice), by, rule, index)
        )
    i.locals[name] = choice
