"""`--trace FILE.jsonl.gz` (or `.zst`) writes the trace compressed, and `replay` reads it."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import pytest

from tests.conftest import RULEBOOKS, run_cli

SUB = RULEBOOKS / "steel_wolves_like"


def test_gzip_trace_is_smaller_and_replays(tmp_path: Path) -> None:
    plain, packed = tmp_path / "game.jsonl", tmp_path / "game.jsonl.gz"
    for path in (plain, packed):
        result = run_cli("run", SUB, "--seed", "3", "--trace", path, "--json")
        assert result.exit_code == 0, result.stderr
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    # the same lines, compressed to a fraction of their size
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert packed.stat().st_size * 4 < plain.stat().st_size
    for path in (plain, packed):
        replayed = run_cli("replay", path)
        assert replayed.exit_code == 0, replayed.stderr
        assert "replay matches" in replayed.stdout
    renamed = tmp_path / "renamed.jsonl"  # told by its first bytes, not its name
    renamed.write_bytes(packed.read_bytes())
    assert run_cli("replay", renamed).exit_code == 0


def test_a_damaged_compressed_trace_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "cut.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbage")
    result = run_cli("replay", bad)
    assert result.exit_code == 1
    assert "does not decompress" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("zstandard") is not None, reason="zstandard is installed here"
)
def test_zst_without_zstandard_says_how_to_get_it(tmp_path: Path) -> None:
    result = run_cli("run", SUB, "--seed", "3", "--trace", tmp_path / "game.jsonl.zst")
    assert result.exit_code == 1
    assert "pip install zstandard" in result.stderr and "Traceback" not in result.stderr
