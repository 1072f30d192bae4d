"""Decision policies: every player choice goes through one of these."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from attrs import define, field, frozen

from rulekit.engine.values import EnumValue, show
from rulekit.errors import InputError, did_you_mean, error


@frozen
class DecisionRequest:
    """A choice the rules hand to the player."""

    name: str
    options: tuple[Any, ...]
    default: Any = None
    rule: str | None = None
    title: str | None = None
    where: str = ""
    # whether the rulebook writes a default: `default none` is one (the option none)
    has_default: bool | None = None
    side: Any = None  # whose decision it is (`choose ... by SIDE`), None: the one player's

    @property
    def defaulted(self) -> bool:
        """The rulebook gives a default (which may be the option none)."""
        return self.default is not None if self.has_default is None else self.has_default

    @property
    def default_position(self) -> int | None:
        """The position of the rulebook's default among the options, if it gives one (the
        very object first: two options may be equal, as two pieces of one type)."""
        if not self.defaulted:
            return None
        for k, option in enumerate(self.options):
            if option is self.default:
                return k
        return next((k for k, o in enumerate(self.options) if o == self.default), None)


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
        if request.defaulted:
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


@define
class StrictScriptedPolicy:
    """Answers from a script file only: a decision without an answer is an error."""

    answers: dict[str, list[str]]
    source: str
    used: dict[str, int] = field(factory=dict)

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        given = self.answers.get(request.name, [])
        index = self.used.get(request.name, 0)
        if index >= len(given):
            raise InputError(
                [
                    error(
                        f"the script has no answer for decision '{request.name}'"
                        + (f" [{request.rule}]" if request.rule else "")
                        + f" (number {index + 1}) at {request.where}",
                        where=self.source,
                        hint=f"add {request.name} = [...] with options from: "
                        + ", ".join(show(o) for o in request.options),
                    )
                ]
            )
        self.used[request.name] = index + 1
        return match_option(given[index], request, f"{self.source}: {request.name}"), "script"


@define
class RandomPolicy:
    """Chooses uniformly among the legal options, from its own seeded generator.

    It never sees the dice: a game's dice and its random choices are independent streams.
    """

    seed: int | None = None
    rng: random.Random = field(init=False)

    def __attrs_post_init__(self) -> None:
        self.rng = random.Random(f"policy:{self.seed}")

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        return request.options[self.rng.randrange(len(request.options))], "random"


@define
class ReplayPolicy:
    """Answers with the option positions a trace recorded, in order, as their decider did."""

    indices: list[int]
    deciders: list[str] = field(factory=list)
    used: int = 0

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        if self.used >= len(self.indices):
            raise InputError(
                [error(f"the trace has no more decisions for '{request.name}'", where="replay")]
            )
        index = self.indices[self.used]
        self.used += 1
        if not 0 <= index < len(request.options):
            raise InputError(
                [
                    error(
                        f"the trace's decision '{request.name}' has no option {index}",
                        where="replay",
                    )
                ]
            )
        by = self.deciders[self.used - 1] if self.used - 1 < len(self.deciders) else "replay"
        return request.options[index], by


@define
class InteractivePolicy:
    """Asks the player: shows what just happened and the legal choices, re-asks on a bad answer."""

    read: Callable[[str], str]
    write: Callable[[str], None]
    context: Callable[[], list[str]] = field(factory=lambda: lambda: [])
    # Fills a prompt's {name} placeholders from the deciding procedure (set once the game exists)
    describe: Callable[[str], str] = field(factory=lambda: lambda text: text)

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        for line in self.context():
            self.write(line)
        title = f" {self.describe(request.title)}" if request.title else ""
        rule = f" [{request.rule}]" if request.rule else ""
        self.write(f"decision {request.name}{rule}:{title}")
        for number, option in enumerate(request.options, start=1):
            mark = "  (default)" if request.defaulted and option == request.default else ""
            self.write(f"  {number}) {show(option)}{mark}")
        while True:
            try:
                answer = self.read("> ").strip()
            except EOFError:
                raise InputError(
                    [error(f"no answer for decision '{request.name}': input ended", where="stdin")]
                ) from None
            if not answer and request.defaulted:
                return request.default, "player (default)"
            if answer.isdigit() and 1 <= int(answer) <= len(request.options):
                return request.options[int(answer) - 1], "player"
            try:
                return match_option(answer, request, "stdin"), "player"
            except InputError as exc:
                self.write(f"  {exc.diagnostics[0].message}; answer with a number or a name")
