"""`--trace FILE.jsonl.gz` (or `.zst`) writes the trace compressed, and `replay` reads it."""

from __future__ import annotations

import gzip
import json
import sys
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


def test_zst_trace_round_trips_and_replays(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")  # the [zstd] extra, in [test]
    plain, packed = tmp_path / "game.jsonl", tmp_path / "game.jsonl.zst"
    for path in (plain, packed):
        result = run_cli("run", SUB, "--seed", "3", "--trace", path, "--json")
        assert result.exit_code == 0, result.stderr
    data = packed.read_bytes()
    assert data[:4] == b"\x28\xb5\x2f\xfd"  # a zstd frame, by its magic number
    # decompressed by zstandard itself, not by our reader: the same lines as the plain trace
    with zstandard.ZstdDecompressor().stream_reader(packed.open("rb")) as reader:
        assert reader.read() == plain.read_bytes()
    assert len(data) * 4 < plain.stat().st_size
    for path in (plain, packed):
        replayed = run_cli("replay", path, "--json")
        assert replayed.exit_code == 0, replayed.stderr
    same = [json.loads(run_cli("replay", p, "--json").stdout) for p in (plain, packed)]
    assert same[0] == same[1] and same[0]["ok"] and same[0]["events"] > 0
    renamed = tmp_path / "renamed.jsonl"  # told by its first bytes, not its name
    renamed.write_bytes(data)
    assert "replay matches" in run_cli("replay", renamed).stdout


def test_zst_written_by_another_tool_in_several_frames_replays(tmp_path: Path) -> None:
    # a trace compressed afterwards by the zstd tool (or cat a.zst b.zst) may hold several
    # frames, and a stream reader stops at the first unless told not to
    zstandard = pytest.importorskip("zstandard")
    plain = tmp_path / "game.jsonl"
    assert run_cli("run", SUB, "--seed", "5", "--trace", plain).exit_code == 0
    text = plain.read_bytes()
    cut = text.index(b"\n", len(text) // 2) + 1
    packer = zstandard.ZstdCompressor(level=3)
    framed = tmp_path / "framed.jsonl.zst"
    framed.write_bytes(packer.compress(text[:cut]) + packer.compress(text[cut:]))
    result = run_cli("replay", framed)
    assert result.exit_code == 0, result.stderr
    assert "replay matches" in result.stdout


def test_a_damaged_zst_trace_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    packed = tmp_path / "game.jsonl.zst"
    assert run_cli("run", SUB, "--seed", "3", "--trace", packed).exit_code == 0
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(packed.read_bytes()[: packed.stat().st_size // 2])
    garbage = tmp_path / "garbage.jsonl.zst"
    garbage.write_bytes(b"\x28\xb5\x2f\xfd" + b"not a frame at all" * 4)
    for bad in (cut, garbage):
        result = run_cli("replay", bad)
        assert result.exit_code == 1, (bad, result.stdout)
        assert "Traceback" not in result.stderr
        assert "does not decompress" in result.stderr


def test_zst_without_zstandard_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zstandard = pytest.importorskip("zstandard")
    packed = tmp_path / "made.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(b'{"rulekit_trace": 1}\n'))
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if it were not installed
    written = tmp_path / "game.jsonl.zst"
    for args in (("run", SUB, "--seed", "3", "--trace", written), ("replay", packed)):
        result = run_cli(*args)
        assert result.exit_code == 1, args
        assert "zstandard package, which is not installed" in result.stderr
        assert "pip install 'rulekit[zstd]'" in result.stderr
        assert "Traceback" not in result.stderr
    assert not written.exists()  # refused before the game, not after playing it


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_a_trace_that_decompresses_past_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    # the limit is 2 GiB; lowered here so that a 1 MiB trace stands for a decompression bomb
    from rulekit.play import trace_io

    monkeypatch.setattr(trace_io, "MAX_TRACE_BYTES", 100_000)
    body = b'{"rulekit_trace": 1}\n' + b" " * 1_000_000
    if suffix == ".gz":
        packed = gzip.compress(body)
    else:
        packed = pytest.importorskip("zstandard").ZstdCompressor().compress(body)
    bomb = tmp_path / f"bomb.jsonl{suffix}"
    bomb.write_bytes(packed)
    assert len(packed) < 5_000
    result = run_cli("replay", bomb)
    assert result.exit_code == 1
    assert "decompresses to more than" in result.stderr and "Traceback" not in result.stderr
