"""Decision policies: every player choice goes through one of these."""

from __future__ import annotations

from typing import Any, Protocol

from attrs import define, field, frozen

from rulekit.errors import InputError, did_you_mean, error
from rulekit.values import EnumValue, show


@frozen
class DecisionRequest:
    """A choice the rules hand to the player."""

    name: str
    options: tuple[Any, ...]
    default: Any = None
    rule: str | None = None
    title: str | None = None
    where: str = ""


class Policy(Protocol):
    """Answers decisions. A policy never sees the dice."""

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        """The chosen option and who chose it ("default", "given", ...)."""
        ...


def _names(option: Any) -> list[str]:
    if isinstance(option, EnumValue):
        return [option.member, option.printed or option.member]
    if isinstance(option, bool):
        return [show(option), str(option).lower()]
    return [show(option)]


def match_option(answer: Any, request: DecisionRequest, where: str) -> Any:
    """The option whose name is ``answer`` (exactly, then ignoring case)."""
    answer = show(answer) if not isinstance(answer, str) else answer
    for folded in (False, True):
        for option in request.options:
            names = _names(option)
            if folded:
                names = [x.lower() for x in names]
            if (answer.lower() if folded else answer) in names:
                return option
    known = [name for option in request.options for name in _names(option)]
    raise InputError(
        [
            error(
                f"'{answer}' is not an option of decision '{request.name}'"
                + (f" [{request.rule}]" if request.rule else "")
                + f" (options: {', '.join(show(o) for o in request.options)})",
                where=where,
                hint=did_you_mean(answer, known),
            )
        ]
    )


@define
class DefaultPolicy:
    """Takes the default the rulebook writes down; a choice without one needs an answer."""

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        if request.default is not None:
            return request.default, "default"
        if len(request.options) == 1:
            return request.options[0], "only option"
        raise InputError(
            [
                error(
                    f"decision '{request.name}' at {request.where} has no default",
                    where="--decide",
                    hint=f"give --decide {request.name}=VALUE "
                    f"(options: {', '.join(show(o) for o in request.options)})",
                )
            ]
        )


@define
class ScriptedPolicy:
    """Answers from a script (``--decide name=value``), in order for repeated decisions."""

    answers: dict[str, list[str]]
    fallback: Policy = field(factory=DefaultPolicy)
    used: dict[str, int] = field(factory=dict)

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        given = self.answers.get(request.name)
        if given:
            index = self.used.get(request.name, 0)
            if index < len(given):
                self.used[request.name] = index + 1
                return match_option(given[index], request, f"--decide {request.name}"), "given"
        return self.fallback.decide(request)
