"""Installed like any Python tool: the wheel carries the bundled rulebooks and examples,
and the installed `rulekit` plays one by name from an empty directory, far from the clone.

The wheel is built from a copy of the tracked files (nothing is written into the clone),
installed with ``--no-deps`` into a fresh venv that borrows the running venv's
site-packages for the dependencies (a ``.pth`` file: the running venv's own ``.pth`` files,
the editable rulekit among them, are not read from there), so it needs no download beyond
the build backend pip fetches for an isolated build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from conftest import ROOT


def _tracked() -> list[str]:
    done = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False, text=True
    )
    if done.returncode != 0:
        pytest.skip("not a git clone")
    return [p for p in done.stdout.split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    for rel in _tracked():
        target = src / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(work / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (work / "dist").glob("rulekit-*.whl")
    env = work / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # the dependencies (lark, click, rich...) from the running venv
    (Path(purelib) / "running_venv.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    return env


def _rulekit(env: Path, *args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    variables = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    variables["RULEKIT_PLAY_DIR"] = str(cwd / "saves")
    return subprocess.run(
        [str(env / "bin" / "rulekit"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=variables,
        check=False,
        timeout=300,
    )


def test_the_installed_rulekit_is_the_wheel_not_the_clone(installed: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import rulekit.bundled as b; print(b.root())"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.strip().startswith(str(installed)), done.stdout
    assert _rulekit(installed, "--version", cwd=tmp_path).stdout.startswith("rulekit, version")


def test_the_wheel_lists_and_plays_bundled_rulebooks_from_an_empty_folder(
    installed: Path, tmp_path: Path
) -> None:
    listed = _rulekit(installed, "rulebooks", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "silent_war" in listed.stdout and "tutorial" in listed.stdout
    # play: the first decisions answered with Enter, then the input ends (saved, exit 130)
    played = _rulekit(installed, "play", "silent_war", "--seed", "3", cwd=tmp_path, stdin="\n" * 5)
    assert played.returncode == 130, played.stdout + played.stderr
    assert "=== Turn 1 of 15: Short Campaign" in played.stdout
    given = _rulekit(
        installed,
        "resolve",
        "silent_war",
        "counterattack",
        "--given",
        "examples/silent_war/spearfish_14_15.toml",
        "--dice",
        "4",
        cwd=tmp_path,
    )
    assert given.returncode == 0, given.stderr
    assert "result: No Effect" in given.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saves"]
