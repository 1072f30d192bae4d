"""Solitaire play in the terminal (``rulekit play``): the player makes the decisions.

A game here is its start (rulebook, options, scenario, seed) and the list of answers given so
far, each the position of the chosen option. Everything else follows from those: the dice
are seeded, so playing the start again with the same answers reaches the same position. That
is how a game is saved (a small TOML file), resumed, and how ``undo`` works: drop the last
answer the player typed and play the game again up to that decision, silently.

Control words at a prompt (undo, quit) leave the running procedure by exceptions derived
from BaseException, so no ``except Exception`` of the engine can swallow them.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tomli_w
from attrs import define, field

from rulekit.analysis.advised import Goal, Lookahead
from rulekit.analysis.advised_situations import ADVISED_MAX_SITUATIONS
from rulekit.book.checker import Checked, decision_names
from rulekit.engine.dice import SeededDice
from rulekit.engine.interpreter import Interpreter
from rulekit.engine.policy import DecisionRequest
from rulekit.engine.runtime import Frame
from rulekit.engine.trace import DrawEvent, Event
from rulekit.engine.values import show, showing_pieces
from rulekit.errors import InputError, RulekitError, did_you_mean, error
from rulekit.play.odds import Odds, odds_said
from rulekit.play.runner import Game, attach_policy, describe_turn, resume_game
from rulekit.play.scenario import apply_scenario, find_scenario, load_scenario
from rulekit.play.screen import (
    BOARD_WIDTH,
    Viewer,
    board_lines,
    default_index,
    help_lines,
    option_labels,
    prompt_lines,
    story,
    with_subject,
)
from rulekit.play.verdicts import Answered, brief, open_titles, words_of

PLAY_FORMAT = 1
ENV_DIR = "RULEKIT_PLAY_DIR"
INTERRUPTED = 130
ADVISE_SECONDS = 2.0  # `advise` answers within this, or says why it cannot


def play_dir() -> Path:
    """Where autosaves go: $RULEKIT_PLAY_DIR, else the user's data dir."""
    given = os.environ.get(ENV_DIR)
    if given:
        return Path(given)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "rulekit" / "play"


def board_width() -> int:
    """The board's width: the terminal's, at most 100 columns (and at least 60)."""
    return max(60, min(shutil.get_terminal_size((100, 40)).columns, BOARD_WIDTH))


def autosave_path() -> Path:
    return play_dir() / "autosave.toml"


class _Undo(BaseException):
    """Back to the previous decision the player answered."""


class _Quit(BaseException):
    """The player stops."""


class _Rebuild(BaseException):
    """Play the game again from its start with the answers kept."""


class _OutOfTime(BaseException):
    """`advise`'s look-ahead by situations ran out of its time (it keeps no deadline of its
    own): it works on copies of the game, so stopping it anywhere leaves the game as it was."""


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Stop what runs inside after ``seconds`` (a timer signal, where there is one: the main
    thread of a POSIX process), by raising _OutOfTime."""
    main = threading.current_thread() is threading.main_thread()
    if not hasattr(signal, "setitimer") or not main:
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise _OutOfTime

    before = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


@define
class PlaySave:
    """A game of ``rulekit play``: its start and the answers given."""

    rulebook: str
    name: str
    edition: str
    options: list[str]
    scenario: str
    seed: int
    answers: list[int] = field(factory=list)
    by: list[str] = field(factory=list)
    turn: int = 0
    ended: str = ""
    base: str = ""  # the text of the `rulekit run` save the game continued from, if any
    always: list[str] = field(factory=list)  # decisions answered by their default, unasked

    def write(self, path: Path) -> None:
        data = {
            "rulekit_play": PLAY_FORMAT,
            "rulebook": self.rulebook,
            "name": self.name,
            "edition": self.edition,
            "options": self.options,
            "scenario": self.scenario,
            "seed": self.seed,
            "turn": self.turn,
            "ended": self.ended,
            "answers": self.answers,
            "by": self.by,
        }
        if self.base:
            data["base"] = self.base
        if self.always:
            data["always"] = self.always
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".play-", suffix=".toml")
        with os.fdopen(fd, "wb") as handle:
            tomli_w.dump(data, handle)
        os.replace(tmp, path)


def read_play_save(path: Path, rulebook: str | None = None) -> PlaySave:
    """A save written by ``rulekit play``, or by ``rulekit run --save`` (then the game goes
    on from there with the player deciding; ``rulebook`` is the one it was played with).
    Anything else is reported, not raised."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        hint = "play a game first: rulekit play RULEBOOK" if not path.exists() else None
        raise InputError(
            [error(f"cannot read '{path}': {exc.strerror}", where="--resume", hint=hint)]
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError([error(f"'{path}' is not TOML: {exc}", where="--resume")]) from None
    if "rulekit_play" not in data and "format" in data and "values" in data:
        return _from_run(path, text, data, rulebook)
    if data.get("rulekit_play") != PLAY_FORMAT:
        raise InputError(
            [
                error(
                    f"'{path}' is a save of neither rulekit play (format {PLAY_FORMAT}) "
                    "nor rulekit run",
                    where="--resume",
                )
            ]
        )
    try:
        return PlaySave(
            str(data["rulebook"]),
            str(data["name"]),
            str(data["edition"]),
            [str(o) for o in data["options"]],
            str(data["scenario"]),
            int(data["seed"]),
            [int(a) for a in data["answers"]],
            [str(b) for b in data["by"]],
            int(data.get("turn", 0)),
            str(data.get("ended", "")),
            str(data.get("base", "")),
            [str(a) for a in data.get("always", [])],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError([error(f"'{path}' is damaged: {exc!s}", where="--resume")]) from None


def _from_run(path: Path, text: str, data: dict[str, Any], rulebook: str | None) -> PlaySave:
    """A game saved by ``rulekit run --save``, to be continued by the player."""
    if rulebook is None:
        raise InputError(
            [
                error(
                    f"'{path}' is a save of rulekit run: name its rulebook",
                    where="--resume",
                    hint=f"rulekit play RULEBOOK --resume {path}",
                )
            ]
        )
    try:
        return PlaySave(
            rulebook,
            str(data["rulebook"]),
            str(data["edition"]),
            [str(o) for o in data.get("options", [])],
            str(data["scenario"]),
            int(data.get("seed", 0)),
            turn=int(data["turn"]),
            ended=str(data.get("ended", "")),
            base=text,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError([error(f"'{path}' is damaged: {exc!s}", where="--resume")]) from None


class PlayPolicy:
    """The player, for the engine: replays kept answers, then asks (see the session)."""

    def __init__(self, session: PlaySession) -> None:
        self.session = session

    def attach(self, interp: Interpreter) -> None:
        if self.session.watching:  # once `advise` was asked for (it costs a copy per call)
            self.session.lookahead.attach(interp)

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        return self.session.decide(request)


class PlaySession:
    """One game at the terminal."""

    def __init__(
        self,
        checked: Checked,
        save: PlaySave,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        max_steps: int | None = None,
    ) -> None:
        self.checked = checked
        self.max_steps = max_steps
        self.save = save
        self.read = read
        self.write = write
        self.autosave = autosave_path()
        self.game: Game | None = None
        self.viewer: Viewer | None = None
        self.pos = 0  # answers replayed so far in this build of the game
        self.shown = 0  # events of the current turn already told
        self.resumed = False  # show the situation again at the first live moment
        self.auto_frame: Frame | None = None
        self.lookahead = Lookahead(checked, max_situations=ADVISED_MAX_SITUATIONS)
        self.words = words_of(checked)  # the rulebook's words for the story
        self.goal: Goal | None = None  # the last `advise EXPR`
        self.watching = False  # the look-ahead follows the game (from the first `advise`)
        self.pending: str | None = None  # an `advise` to answer once the game is rebuilt
        self.answered: list[tuple[int, Answered]] = []  # answers not asked, to tell in place
        self.odds = Odds(checked)  # each option's chances, where the rulebook has a view
        self.odds_shown: list[str] = []  # the current question's, for `?`
        self.board_shown: list[str] = []  # the part of the board last drawn for a question

    # ---- the game loop ------------------------------------------------------------------

    @property
    def replaying(self) -> bool:
        return self.pos < len(self.save.answers)

    def run(self) -> int:
        """Play to the end, a quit or an interrupt; the exit code."""
        self.resumed = bool(self.save.answers or self.save.base)
        while True:
            try:
                self._play()
                return 0
            except (_Undo, _Rebuild):
                self.resumed = True
                continue
            except _Quit:
                return 0
            except (KeyboardInterrupt, EOFError):
                self._store(self.autosave)
                self.write("")
                self.write(f"interrupted: the game is saved in {self.autosave}")
                self.write("continue it with: rulekit play --resume")
                return INTERRUPTED

    def _play(self) -> None:
        self.pos, self.shown, self.auto_frame = 0, 0, None
        self.answered = []
        save = self.save
        if save.base:  # a game `rulekit run --save` wrote, continued here
            game = self._from_run_save(save.base)
            interp = game.interp
            self.game, self.viewer = game, Viewer(self.checked, interp)
        else:
            # as runner.new_game, but the session knows the game before the scenario's
            # set-up runs, since the set-up may ask the player too
            scenario = load_scenario(self.checked, find_scenario(self.checked, save.scenario))
            self.lookahead = Lookahead(self.checked, max_situations=ADVISED_MAX_SITUATIONS)
            interp = Interpreter(self.checked, SeededDice(save.seed), PlayPolicy(self))
            attach_policy(interp)
            game = Game(self.checked, scenario, interp, save.seed, "play")
            self.game, self.viewer = game, Viewer(self.checked, interp)
        if self.max_steps is not None:
            interp.set_budget(self.max_steps)
        # the story, like the prompts, shows a face-down piece where it is, not what it is
        with showing_pieces(self.viewer.face):
            if not save.base:
                apply_scenario(self.checked, game.scenario, interp)
            interp.trace.events.clear()
            self._turns(game)

    def _from_run_save(self, text: str) -> Game:
        """The game a `rulekit run` save holds, with the player deciding from there."""
        self.autosave.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.autosave.parent, prefix=".run-", suffix=".toml")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            # resume_game attaches it
            self.lookahead = Lookahead(self.checked, max_situations=ADVISED_MAX_SITUATIONS)
            return resume_game(self.checked, tmp, "play", PlayPolicy(self))
        finally:
            os.unlink(tmp)

    def _turns(self, game: Game) -> None:
        save = self.save
        info = game.scenario.info
        while game.ended is None and game.turn < info.turns:
            self.shown = 0
            if not self.replaying:
                self._turn_header(game.turn + 1)
            game.play(1, explain=self._turn_end)
            save.turn = game.turn
            self._store(self.autosave)
        if game.ended is not None and not self.replaying:
            self.write(f"=== the game is over: {game.ended}")
        save.ended = game.ended or ""
        self._store(self.autosave)

    def _turn_header(self, turn: int) -> None:
        assert self.game is not None
        info = self.game.scenario.info
        self.resumed = False
        self.write("")
        self.write(f"=== Turn {turn} of {info.turns}: {info.title}")
        self._status()
        self._board(quiet=True)

    def _status(self) -> None:
        assert self.viewer is not None
        lines = self.viewer.status()
        if not lines:
            self.write("(this rulebook declares no status view)")
        for line in lines:
            self.write(f"  {line}")

    def _board(self, quiet: bool = False) -> None:
        """The rulebook's board view, drawn (``quiet``: nothing when it declares none)."""
        assert self.viewer is not None
        sections = self.viewer.board()
        if sections is None:
            if not quiet:
                self.write("(this rulebook declares no board view)")
            return
        for line in board_lines(sections, board_width()):
            self.write(line)

    def _turn_end(self, turn: int, events: list[Event]) -> None:
        if self.replaying:
            return
        self._catch_up(events)
        assert self.game is not None
        self.write(describe_turn(self.game.reports[-1], self.words.name_of))

    def _catch_up(self, events: list[Event]) -> None:
        """Show the situation after a resume or undo, then the story since last told."""
        if self.resumed:
            assert self.game is not None
            self.resumed = False
            self.write("")
            self.write(f"=== Turn {self.game.turn} (resumed)")
            self._status()
        top = min(e.depth for e in events) if events else None  # the turn's phases
        assert self.viewer is not None
        told: list[Event | Answered] = list(self.viewer.conceal(events[self.shown :]))
        for at, answer in reversed(self.answered):
            told.insert(max(at - self.shown, 0), answer)
        self.answered.clear()
        before = events[: self.shown]
        opened = open_titles(before)  # the rolls name the rule they serve
        drawn = self.viewer.secrets.pools | {e.pool for e in events if isinstance(e, DrawEvent)}
        for line in brief(
            told,
            self.words,
            top=top,
            titles=opened,
            earlier=before,
            pools=frozenset(drawn),
            faces=self.viewer.faces_down,
        ):
            self.write(line)
        self.shown = len(events)

    def _store(self, path: Path) -> None:
        self.save.write(path)

    # ---- decisions -----------------------------------------------------------------------

    def decide(self, request: DecisionRequest) -> tuple[Any, str]:
        assert self.game is not None and self.viewer is not None
        interp = self.game.interp
        if self.replaying:
            index, by = self.save.answers[self.pos], self.save.by[self.pos]
            self.pos += 1
            if not 0 <= index < len(request.options):
                raise InputError(
                    [
                        error(
                            f"the save does not fit this rulebook: decision {self.pos} "
                            f"('{request.name}') has no option {index + 1}",
                            where="--resume",
                        )
                    ]
                )
            self.shown = len(interp.trace.events)
            self.lookahead.decided(request, index)
            return request.options[index], by
        title = with_subject(self.viewer, request.title or request.name)
        labels = option_labels(self.viewer, request.options)
        # a question answered without asking is told in the story, in its place, so that
        # a run of them (TDC markers placed, units revealed) reads as one line
        default = default_index(request)
        taken: tuple[int, str] | None = None
        if len(request.options) == 1:
            taken = 0, "only option"
        elif default is not None and request.name in self.save.always:
            taken = default, "always"
        elif default is not None and self._in_auto(interp):
            taken = default, "auto"
        if taken is not None:
            index, why = taken
            here = len(interp.trace.events)
            self.answered.append((here, Answered(interp.depth, title, labels[index], why)))
            return self._answer(request, index, why)
        self._catch_up(interp.trace.events)
        self._board_for(request)
        said = self._odds(request, interp)
        for line in prompt_lines(title, request, labels, said):
            self.write(line)
        if self.pending is not None:
            text, self.pending = self.pending, None
            self._advise(text, request, labels)
        while True:
            shown = f"[{labels[default]}] " if default is not None else ""
            answer = self.read(f"{shown}> ").strip()
            picked = self._command(answer, request, labels, interp)
            if picked is not None:
                by = "player (auto)" if answer.lower() == "auto" else "player"
                return self._answer(request, picked, by)

    def _board_for(self, request: DecisionRequest) -> None:
        """The part of the board the question needs (the rulebook's view for it), unless it
        is what the player has just been shown."""
        assert self.viewer is not None
        sections = self.viewer.board_for(request.name)
        if not sections:
            return
        lines = board_lines(sections, board_width())
        if lines == self.board_shown:
            return
        self.board_shown = lines
        for line in lines:
            self.write(line)

    def _odds(self, request: DecisionRequest, interp: Interpreter) -> list[str]:
        """Each option's chances (rulekit.play.odds), when the rulebook shows them for this
        decision; a line saying why when they are not ready in time."""
        self.odds_shown = []
        if not self.odds.has(request):
            return []
        found = self.odds.work_out(request, interp)
        title = self.odds.title(request)
        if isinstance(found, str):
            self.write(f"  odds ({title}): {found}")
            return []
        self.odds_shown = odds_said(found, title, show)
        return self.odds_shown

    def _answer(self, request: DecisionRequest, index: int, by: str) -> tuple[Any, str]:
        self.lookahead.decided(request, index)
        self.save.answers.append(index)
        self.save.by.append(by)
        self.pos += 1
        self._store(self.autosave)
        return request.options[index], by

    def _phase(self, interp: Interpreter) -> Frame | None:
        # frames: the rulebook's, the sequence's, then the phase being played
        return interp.frames[2] if len(interp.frames) > 2 else None

    def _in_auto(self, interp: Interpreter) -> bool:
        phase = self._phase(interp)
        return phase is not None and phase is self.auto_frame

    def _command(
        self, answer: str, request: DecisionRequest, labels: list[str], interp: Interpreter
    ) -> int | None:
        """The option an answer picks, or None after a command that is not an answer."""
        word, _, rest = answer.partition(" ")
        word = word.lower()
        default = default_index(request)
        if not answer:
            if default is None:
                self.write("  this decision has no default: answer with a value or #N")
                return None
            return default
        if word in ("?", "help"):
            for line in help_lines(
                self.checked,
                interp,
                request,
                labels,
                self.viewer.interpolate if self.viewer else str,
                self.odds_shown,
            ):
                self.write(line)
            return None
        if word == "status" and not rest:
            self._status()
            return None
        if word == "board" and not rest:
            self._board()
            return None
        if word == "log":
            assert self.viewer is not None
            shown = self.viewer.conceal(interp.trace.events)
            every = rest.strip() == "all"
            lines = story(shown, every=True) if every else brief(shown, self.words)
            for line in lines:
                self.write(line)
            return None
        if word == "save":
            path = Path(rest.strip()) if rest.strip() else self.autosave
            self._store(path)
            self.write(f"  saved in {path}; continue with: rulekit play --resume {path}")
            return None
        if word == "undo" and not rest:
            self._undo()
            return None
        if word == "auto" and not rest:
            phase = self._phase(interp)
            if default is None or phase is None:
                self.write("  no default here: answer this one, auto works at the next")
                return None
            self.auto_frame = phase
            self.write(f"  auto: the rulebook's defaults for the rest of {phase.name}")
            return default
        if word == "always":
            return self._always(rest.strip() or request.name, request)
        if word == "ask":
            self._ask(rest.strip())
            return None
        if word == "quit" and not rest:
            self._quit()
        if word == "advise":
            self._advise(rest.strip(), request, labels)
            return None
        return self._pick(answer, request, labels)

    def _always(self, name: str, request: DecisionRequest) -> int | None:
        """Set a routine question to be answered by its default from now on (saved with the
        game); when it is this one, answer it now too."""
        default = default_index(request)
        here = name == request.name
        if here and default is None:
            self.write("  this question has no default: answer it, always works where one is")
            return None
        if not here and name not in self._decision_names():
            hint = did_you_mean(name, sorted(self._decision_names()))
            self.write(f"  there is no question '{name}'" + (f"; {hint}" if hint else ""))
            return None
        if name not in self.save.always:
            self.save.always.append(name)
        self._store(self.autosave)
        self.write(f"  always: '{name}' takes the rulebook's default from now on")
        self.write(f"  (ask {name}: it is asked again)")
        return default if here else None

    def _ask(self, name: str) -> None:
        """Ask a question set to always again; without a name, list them."""
        if not name:
            if not self.save.always:
                self.write("  no question is set to always")
            for each in self.save.always:
                self.write(f"  always: {each} (ask {each}: asked again)")
            return
        if name not in self.save.always:
            are = f": {', '.join(self.save.always)} are" if self.save.always else ""
            self.write(f"  '{name}' is not set to always{are}")
            return
        self.save.always.remove(name)
        self._store(self.autosave)
        self.write(f"  ask: '{name}' is asked again")

    def _decision_names(self) -> set[str]:
        return decision_names(self.checked.book)

    def _advise(self, text: str, request: DecisionRequest, labels: list[str]) -> None:
        """Each option's expected EXPR over this decision's procedure (analysis.advised).
        The first time, the game is played again from its start with the look-ahead
        following it (it needs each procedure's state as it began), back to this prompt."""
        if not self.watching:
            self.watching, self.pending = True, text
            self.write("  advise: playing the game again to follow its procedures ...")
            raise _Rebuild
        if text:
            try:
                self.goal = Goal.read(self.checked, text, where="advise")
            except RulekitError as exc:
                self.write(exc.render(self.checked.book.sources))
                return
        if self.goal is None:
            self.write("  advise what? e.g. advise " + next(iter(self.checked.book.tracks), "EXPR"))
            return
        self.lookahead.deadline = time.monotonic() + ADVISE_SECONDS
        try:
            # the look-ahead by paths watches its deadline; by situations it does not: the
            # timer stops it a little later, as a backstop
            with _within(ADVISE_SECONDS + 0.25):
                found = self.lookahead.values(request, self.goal)
        except RulekitError as exc:
            self.write(exc.render(self.checked.book.sources))
            return
        except _OutOfTime:
            found = f"out of time ({ADVISE_SECONDS:g} s, looking ahead by situations)"
        finally:
            self.lookahead.deadline = None
        which = "least" if self.goal.minimize else "most"
        entry = self.lookahead.entries[-1] if self.lookahead.entries else None
        where = f"procedure '{entry.procedure}'" if entry is not None else "its procedure"
        if isinstance(found, str):
            self.write(
                f"  no advice on {self.goal.text}: {found} "
                f"(the look-ahead plays {where} to its end for each option)"
            )
            return
        values, at_best = found
        if len(set(values)) == 1:
            self.write(
                f"  no advice on {self.goal.text}: every option gives {values[0]} by the end of "
                f"{where}, the look-ahead's horizon; {self.goal.text} changes later than that "
                "(advise something that procedure changes)"
            )
            return
        later = "at their best" if at_best else "at their defaults"
        best = self.goal.best(values, default_index(request))
        self.write(f"  expected {self.goal.text} ({which} is best; later decisions {later}):")
        for k, (label, value) in enumerate(zip(labels, values, strict=True), start=1):
            mark = "  <- advised" if k - 1 == best else ""
            shown = str(value) if value.denominator == 1 else f"{float(value):.4g}"
            self.write(f"  #{k} {label}: {shown}{mark}")

    def _pick(self, answer: str, request: DecisionRequest, labels: list[str]) -> int | None:
        text = answer.strip()
        if text.startswith("#") and text[1:].isdigit():
            number = int(text[1:])
            if 1 <= number <= len(labels):
                return number - 1
            self.write(f"  there is no option #{number}: #1 to #{len(labels)}")
            return None
        folded = text.lower()
        exact = [k for k, x in enumerate(labels) if x.lower() == folded]
        if len(exact) == 1:
            return exact[0]
        # a value as written, when its label says more ("Java Sea" for "Java Sea (5 away, ...)")
        plain = [k for k, o in enumerate(request.options) if show(o).lower() == folded]
        if len(plain) == 1 and labels[plain[0]].lower().startswith(folded):
            return plain[0]
        starts = [k for k, x in enumerate(labels) if x.lower().startswith(folded)]
        if len(starts) == 1:
            return starts[0]
        if len(starts) > 1:
            self.write(f"  '{text}' begins {len(starts)} options: type more, or #N")
            return None
        hint = f" (#{text} is the {text}-th option)" if text.isdigit() else ""
        self.write(f"  '{text}' is not an option{hint}; ? for help")
        return None

    def _undo(self) -> None:
        asked = [k for k, by in enumerate(self.save.by) if by.startswith("player")]
        if not asked:
            self.write("  nothing to undo: this is your first decision")
            return
        last = asked[-1]
        del self.save.answers[last:]
        del self.save.by[last:]
        self._store(self.autosave)
        self.write("  undo: back to your previous decision")
        raise _Undo

    def _quit(self) -> None:
        try:
            answer = self.read("save the game before quitting? [Y/n] ").strip().lower()
        except EOFError:
            answer = "y"
        if answer in ("", "y", "yes"):
            self._store(self.autosave)
            self.write(f"saved in {self.autosave}; continue with: rulekit play --resume")
        raise _Quit


def start_save(checked: Checked, rulebook: str, scenario: str | None, seed: int | None) -> PlaySave:
    """A new game's start: the scenario (the rulebook's default one) and a seed."""
    import random

    book = checked.book
    name = scenario or book.default_scenario
    if name is None:
        raise InputError(
            [
                error(
                    "this rulebook names no default scenario",
                    where="--scenario",
                    hint="give --scenario NAME",
                )
            ]
        )
    return PlaySave(
        rulebook,
        book.name,
        book.edition or "",
        list(book.options_on),
        name,
        seed if seed is not None else random.SystemRandom().randrange(2**31),
    )
