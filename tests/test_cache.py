"""The on-disk cache of parsed files: same text, same nodes, without parsing again."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import run_cli

from rulekit.book.loader import shown_path
from rulekit.language import cache, parser
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
    assert len(list(folder.glob("parse-*.json"))) == 1


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
    (entry,) = folder.glob("parse-*.json")
    entry.write_bytes(b"not JSON")
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
    assert len(list(folder.glob("parse-*.json"))) == 3  # five went over four: the oldest two go
    assert not list(folder.glob("*.tmp"))


# ---- no cache can run code ---------------------------------------------------------------


class Planted:
    """Unpickling this creates a file: the proof that a cache entry ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.mkdir, (str(self.marker),))


def test_a_planted_pickle_in_an_entry_runs_no_code(folder: Path, tmp_path: Path) -> None:
    counting = CountingParse()
    cache.cached_parse(TEXT, "a.rk", counting)
    marker = tmp_path / "code-ran"
    entries = [p for p in folder.iterdir() if p.is_file()]
    assert entries
    for entry in entries:  # every name the cache reads from, whatever its format
        entry.write_bytes(pickle.dumps(Planted(marker)))
    assert cache.cached_parse(TEXT, "a.rk", counting) == parse(TEXT, "a.rk")
    assert not marker.exists()
    assert counting.calls == 2  # the planted entry was not taken for nodes


@pytest.mark.parametrize(
    "data",
    [
        [999, "x"],  # no such node class
        [0],  # a node without its fields
        {"a": 1},  # not a node at all
        [-3, [-4, 1]],  # a fraction without its denominator
        [-1, "x", 1, 1, 1, 1, 1],  # a span of the wrong shape
    ],
)
def test_a_tampered_entry_is_parsed_anew(folder: Path, data: object) -> None:
    counting = CountingParse()
    cache.cached_parse(TEXT, "a.rk", counting)
    (entry,) = folder.glob("parse-*.json")
    saved = json.loads(entry.read_bytes().partition(b"\n")[2])
    saved["data"] = data  # under its own, valid key, and signed: the nodes are checked too
    body = json.dumps(saved).encode()
    secret = cache.signing_key(folder)
    assert secret is not None
    entry.write_bytes(cache._mac(secret, body) + b"\n" + body)
    assert cache.cached_parse(TEXT, "a.rk", counting) == parse(TEXT, "a.rk")
    assert counting.calls == 2


def test_an_entry_under_another_name_is_not_taken(folder: Path) -> None:
    counting = CountingParse()
    cache.cached_parse(TEXT, "a.rk", counting)
    other = TEXT.replace("3", "4")
    (entry,) = folder.glob("parse-*.json")
    cache.cached_parse(other, "a.rk", counting)
    (renamed,) = set(folder.glob("parse-*.json")) - {entry}
    renamed.write_bytes(entry.read_bytes())  # TEXT's entry under the name of another text
    assert cache.cached_parse(other, "a.rk", counting) == parse(other, "a.rk")
    assert counting.calls == 3


def test_pruning_deletes_only_its_own_entries(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 2)
    folder.mkdir(parents=True)
    foreign = ["x.pickle", "notes.json", "parse-1234.json", "grammar-notes.txt", "parse-a.tmp"]
    for name in foreign:
        (folder / name).write_text("someone else's")
    counting = CountingParse()
    for i in range(6):
        cache.cached_parse(TEXT.replace("3", str(i + 10)), "a.rk", counting)
    assert sorted(p.name for p in folder.iterdir() if p.name in foreign) == sorted(foreign)
    assert len(list(folder.glob("parse-*.json"))) < 6


@pytest.fixture
def shared_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh shared temp directory, and parsers built anew while the test runs."""
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    parser.build_parser.cache_clear()
    yield shared
    parser.build_parser.cache_clear()


def test_the_parser_tables_never_go_to_the_shared_temp_directory(
    shared_tmp: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for setting in (str(folder), "off"):
        monkeypatch.setenv("RULEKIT_CACHE", setting)
        parser.build_parser.cache_clear()
        parser.build_parser()
        assert list(shared_tmp.iterdir()) == []
    assert len(list(folder.glob("grammar-*.json"))) == 1


def test_the_parser_tables_from_the_cache_parse_alike(
    shared_tmp: Path, folder: Path, tmp_path: Path
) -> None:
    text = (Path(__file__).parent.parent / "rulebooks" / "silent_war" / "combat.rk").read_text(
        encoding="utf-8"
    )
    built = parser.build_parser()
    assert len(list(folder.glob("grammar-*.json"))) == 1
    expected = parse(text, "combat.rk")
    parser.build_parser.cache_clear()
    loaded = parser.build_parser()
    assert loaded is not built
    again = parse(text, "combat.rk")
    # the same nodes, and the same spans (which node equality leaves out)
    assert cache.encode_nodes(again, "combat.rk") == cache.encode_nodes(expected, "combat.rk")
    marker = tmp_path / "code-ran"
    (entry,) = folder.glob("grammar-*.json")
    entry.write_bytes(pickle.dumps(Planted(marker)))
    parser.build_parser.cache_clear()
    assert parse(text, "combat.rk") == expected  # built anew
    assert not marker.exists()


# ---- where the cache reads: only a private folder of this user's ----------------------------


def _plant(where: Path, path: str) -> None:
    """A well-formed entry for TEXT at ``path`` whose nodes are another text's: taken, it
    would make the rulebook say what its file does not (anyone can compute an entry's key)."""
    key = hashlib.sha256(cache._code_stamp() + path.encode() + b"\0" + TEXT.encode()).hexdigest()
    other = cache.encode_nodes(parse(TEXT.replace("3", "99"), path), path)
    where.mkdir(parents=True, exist_ok=True)
    secret = cache.signing_key(where)  # signed as rulekit signs: only the folder is wrong
    assert secret is not None
    body = json.dumps({"format": cache.FORMAT, "key": key, "data": other}).encode()
    (where / f"parse-{key}.json").write_bytes(cache._mac(secret, body) + b"\n" + body)


def _parsed_anew(path: str = "a.rk") -> bool:
    counting = CountingParse()
    module = cache.cached_parse(TEXT, path, counting)
    assert module == parse(TEXT, path)  # never the planted nodes
    return counting.calls == 1


def test_the_planted_entry_would_be_taken_from_a_private_folder(folder: Path) -> None:
    # the check of the tests below: in the cache's own folder an entry signed with this
    # user's key is read (whoever holds the key is this user; test_confinement shows an
    # entry that is not signed so is not)
    _plant(folder, "a.rk")
    counting = CountingParse()
    assert cache.cached_parse(TEXT, "a.rk", counting) != parse(TEXT, "a.rk")
    assert counting.calls == 0


def test_the_cache_folder_is_created_user_only(folder: Path) -> None:
    cache.cached_parse(TEXT, "a.rk", CountingParse())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert len(list(folder.glob("parse-*.json"))) == 1


def test_a_folder_of_ours_others_may_read_is_made_user_only(folder: Path) -> None:
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    cache.cached_parse(TEXT, "a.rk", CountingParse())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777, 0o757])
def test_a_folder_others_may_write_to_is_never_read(folder: Path, mode: int) -> None:
    _plant(folder, "a.rk")
    folder.chmod(mode)
    assert cache.cache_dir() is None
    assert _parsed_anew()
    assert len(list(folder.glob("parse-*.json"))) == 1  # nothing written there either


def test_the_shared_temp_directory_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp is
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setenv("RULEKIT_CACHE", tempfile.gettempdir())
    _plant(shared, "a.rk")
    assert _parsed_anew()


def test_a_link_planted_in_place_of_the_folder_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    _plant(elsewhere, "a.rk")
    link = tmp_path / "cache"
    link.symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.setenv("RULEKIT_CACHE", str(link))
    assert _parsed_anew()


def test_the_default_folder_under_a_link_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    _plant(elsewhere, "a.rk")
    monkeypatch.delenv("RULEKIT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "rulekit").symlink_to(elsewhere, target_is_directory=True)
    assert cache.cache_dir() is None
    assert _parsed_anew()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs to own a folder as another user")
def test_another_users_folder_is_never_read(folder: Path) -> None:
    _plant(folder, "a.rk")
    folder.chmod(0o700)
    os.chown(folder, 12345, 12345)
    assert cache.cache_dir() is None
    assert _parsed_anew()


def test_nothing_is_read_from_the_rulebooks_folder(
    folder: Path, make_rulebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    book = make_rulebook('rulebook "T"\ndice d6 = 1..6\nprocedure p() -> int [1.0]\n    return 3\n')
    text = (book / "rulebook.rk").read_text(encoding="utf-8")
    path = shown_path(book / "rulebook.rk")  # as the loader names it, and keys its entry
    key = hashlib.sha256(cache._code_stamp() + path.encode() + b"\0" + text.encode()).hexdigest()
    other = cache.encode_nodes(parse(text.replace("return 3", "return 4"), path), path)
    entry = {"format": cache.FORMAT, "key": key, "data": other}
    for where in (book, book / ".rulekit", book / "__pycache__", book.parent):
        where.mkdir(exist_ok=True)
        secret = cache.signing_key(where)  # signed as if rulekit had written it there
        assert secret is not None
        body = json.dumps(entry).encode()
        (where / f"parse-{key}.json").write_bytes(cache._mac(secret, body) + b"\n" + body)
    result = run_cli("resolve", str(book), "p")
    assert result.exit_code == 0, result.output
    assert "result: 3" in result.output
    # the check of the test: the planted entries are well-formed, taken where the cache is
    monkeypatch.setenv("RULEKIT_CACHE", str(book / ".rulekit"))
    assert "result: 4" in run_cli("resolve", str(book), "p").output
