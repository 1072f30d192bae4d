"""The on-disk cache of parsed files: same text, same nodes, without parsing again."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.language import cache
from rulekit.language import nodes as n
from rulekit.language.parser import parse

TEXT = 'const tons = 3 [2.5] "Tons"\n'


class CountingParse:
    """``parse`` that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str, path: str) -> n.Module:
        self.calls += 1
        return parse(text, path)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("RULEKIT_CACHE", str(where))
    return where


def test_the_same_text_is_parsed_once(folder: Path) -> None:
    counting = CountingParse()
    first = cache.cached_parse(TEXT, "a.rk", counting)
    again = cache.cached_parse(TEXT, "a.rk", counting)
    assert counting.calls == 1
    assert again == first == parse(TEXT, "a.rk")
    assert again.decls[0].span == first.decls[0].span  # spans too (they are out of equality)
    assert len(list(folder.glob("*.pickle"))) == 1


def test_another_text_or_path_is_parsed_anew(folder: Path) -> None:
    counting = CountingParse()
    cache.cached_parse(TEXT, "a.rk", counting)
    cache.cached_parse(TEXT.replace("3", "4"), "a.rk", counting)
    moved = cache.cached_parse(TEXT, "b.rk", counting)  # spans name the path
    assert counting.calls == 3
    assert moved.decls[0].span.file == "b.rk"


def test_a_broken_entry_is_parsed_anew_and_replaced(folder: Path) -> None:
    counting = CountingParse()
    cache.cached_parse(TEXT, "a.rk", counting)
    (entry,) = folder.glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    assert cache.cached_parse(TEXT, "a.rk", counting) == parse(TEXT, "a.rk")
    assert counting.calls == 2
    assert cache.cached_parse(TEXT, "a.rk", counting) == parse(TEXT, "a.rk")
    assert counting.calls == 2


def test_off_parses_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEKIT_CACHE", "off")
    assert cache.cache_dir() is None
    counting = CountingParse()
    cache.cached_parse(TEXT, "a.rk", counting)
    cache.cached_parse(TEXT, "a.rk", counting)
    assert counting.calls == 2


def test_a_cache_that_cannot_be_written_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("RULEKIT_CACHE", str(blocker / "cache"))  # under a file: mkdir fails
    counting = CountingParse()
    assert cache.cached_parse(TEXT, "a.rk", counting) == parse(TEXT, "a.rk")
    assert cache.cached_parse(TEXT, "a.rk", counting) == parse(TEXT, "a.rk")
    assert counting.calls == 2


def test_the_default_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RULEKIT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "rulekit"


def test_old_entries_are_pruned(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 4)
    counting = CountingParse()
    for i in range(5):
        cache.cached_parse(TEXT.replace("3", str(i + 10)), "a.rk", counting)
    assert len(list(folder.glob("*.pickle"))) == 3  # five went over four: the oldest two go
    assert not list(folder.glob("*.tmp"))
