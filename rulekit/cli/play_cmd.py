"""``rulekit play``: solitaire play in the terminal (rulekit.play.interactive)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rulekit.limits import DEFAULT_STEP_BUDGET


def _absolute(rulebook: str) -> str:
    """The rulebook argument made independent of the directory a game is resumed from."""
    base, at, variant = rulebook.partition("@")
    if Path(base).exists():
        return str(Path(base).resolve()) + at + variant
    return rulebook


# The step budget of the commands that play turns (play, run, simulate): by default the
# scenario's own (`max_steps` in [scenario]), else the engine's.
turn_steps_option = click.option(
    "--max-steps",
    "max_steps",
    type=click.IntRange(min=1),
    default=None,
    help="The step budget of each phase of a turn (time and memory; see docs/rulebooks.md)"
    f"  [default: the scenario's max_steps, else {DEFAULT_STEP_BUDGET}]",
)


@click.command("play")
@click.argument("rulebook", required=False)
@click.option("--option", "options", multiple=True, metavar="NAME", help="An optional rule.")
@click.option("--scenario", help="Scenario name or TOML file (default: the rulebook's).")
@click.option("--seed", type=int, help="Seed of the dice (default: a random one).")
@turn_steps_option
@click.option(
    "--resume",
    "resume",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="Continue a saved game; without FILE, the last game (the autosave).",
)
def play_cmd(
    rulebook: str | None,
    options: tuple[str, ...],
    scenario: str | None,
    seed: int | None,
    max_steps: int | None,
    resume: str | None,
) -> None:
    """Play a scenario yourself: the situation, the story between your decisions, help,
    save, undo and autosave.

    \b
    At a prompt: a value or its beginning, #N for the N-th option, Enter for the default,
    ? or help, status, log [all], save [FILE], undo, auto (defaults for the rest of the
    phase), quit. Ctrl-C or Ctrl-D save the game and stop (exit code 130).
    The autosave is in $RULEKIT_PLAY_DIR, else ~/.local/share/rulekit/play.
    """
    from rulekit.book.checker import load
    from rulekit.errors import RulekitError
    from rulekit.play.interactive import (
        PlaySession,
        autosave_path,
        read_play_save,
        start_save,
    )

    try:
        if resume is not None:
            if scenario is not None or seed is not None:
                raise click.UsageError("--resume continues a saved game: no --scenario or --seed")
            given = _absolute(rulebook) if rulebook is not None else None
            save = read_play_save(Path(resume) if resume else autosave_path(), given)
            if rulebook is None and resume:
                # a save the user names (not rulekit's own autosave) names a rulebook path
                # that is followed only if it is rulekit's own or the player confirms it
                from rulekit.cli.paths import recorded_rulebook

                save.rulebook = recorded_rulebook(
                    save.rulebook, f"the save '{resume}'", f"rulekit play --resume {resume}"
                )
            if resume:
                from rulekit.book.loader import plain_name
                from rulekit.cli.paths import recorded_scenario

                if not plain_name(save.scenario):  # a file elsewhere: the player confirms
                    recorded_scenario(save.scenario, f"the save '{resume}'")
            checked = load(rulebook or save.rulebook, list(options) or save.options)
            if (checked.book.name, checked.book.edition or "") != (save.name, save.edition):
                raise click.UsageError(
                    f"the save is a game of {save.name} {save.edition}, "
                    f"not of {checked.book.name} {checked.book.edition or ''}"
                )
        else:
            if rulebook is None:
                raise click.UsageError("give a RULEBOOK, or --resume to continue a game")
            checked = load(rulebook, options)
            save = start_save(checked, _absolute(rulebook), scenario, seed)
        from rulekit.cli.simulate_cmd import Terminated, stopped_by_sigterm

        # SIGTERM is handled as Ctrl-C is (the game saved, atomically, and one line says
        # where), then exits 143, as a process stopped by SIGTERM does
        with stopped_by_sigterm() as signalled:
            code = PlaySession(checked, save, max_steps=max_steps).run()
        if signalled and isinstance(signalled[0], Terminated):
            code = 143
    except RulekitError as exc:
        click.echo(exc.render(exc.sources), err=True)
        sys.exit(1)
    sys.exit(code)
