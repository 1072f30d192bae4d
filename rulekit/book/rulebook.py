"""A loaded rulebook: every declaration by kind and name, before checking."""

from __future__ import annotations

from pathlib import Path

from attrs import define, field

from rulekit.errors import Sources
from rulekit.language import nodes as n


@define
class Rulebook:
    """Every declaration of a rulebook, by kind and name, with the files it came from."""

    root: Path
    entry: Path
    sources: Sources
    name: str = ""
    edition: str | None = None
    default_scenario: str | None = None
    dice: dict[str, n.DiceDecl] = field(factory=dict)
    rounding: n.Rounding | None = None
    enums: dict[str, n.EnumDecl] = field(factory=dict)
    markers: dict[str, n.MarkerDecl] = field(factory=dict)
    tracks: dict[str, n.TrackDecl] = field(factory=dict)
    states: dict[str, n.StateDecl] = field(factory=dict)
    consts: dict[str, n.ConstDecl] = field(factory=dict)
    kinds: dict[str, n.KindDecl] = field(factory=dict)
    records: dict[str, n.RecordDecl] = field(factory=dict)
    tables: dict[str, n.TableDecl] = field(factory=dict)
    modifiers: dict[str, n.ModifiersDecl] = field(factory=dict)
    procedures: dict[str, n.ProcedureDecl] = field(factory=dict)
    sequences: dict[str, n.SequenceDecl] = field(factory=dict)
    files: list[str] = field(factory=list)
    options: dict[str, n.OptionDecl] = field(factory=dict)  # optional rules offered
    options_on: list[str] = field(factory=list)  # ... and those switched on
    variants: list[str] = field(factory=list)  # the variants applied, base first
    patches: dict[str, list[n.SetCells]] = field(factory=dict)  # table cells set by changes
    views: dict[str, n.ViewDecl] = field(factory=dict)  # what a player sees (rulekit play)
    hidden: list[n.HiddenDecl] = field(factory=list)  # what no player may know

    @property
    def sequence(self) -> n.SequenceDecl | None:
        """The main sequence of play: the one named "turn", or the first declared."""
        return self.sequences.get("turn") or next(iter(self.sequences.values()), None)

    def global_names(self) -> dict[str, object]:
        """Every name declared at the top level, whatever its kind."""
        out: dict[str, object] = {}
        for table in (
            self.enums,
            self.markers,
            self.tracks,
            self.states,
            self.consts,
            self.kinds,
            self.records,
            self.tables,
            self.modifiers,
            self.procedures,
        ):
            out.update(table)
        return out


# Declarations kept in a dictionary of the rulebook, by node class -> attribute
DECL_KINDS = {
    n.DiceDecl: "dice",
    n.EnumDecl: "enums",
    n.MarkerDecl: "markers",
    n.TrackDecl: "tracks",
    n.StateDecl: "states",
    n.ConstDecl: "consts",
    n.KindDecl: "kinds",
    n.RecordDecl: "records",
    n.TableDecl: "tables",
    n.ModifiersDecl: "modifiers",
    n.ProcedureDecl: "procedures",
}
