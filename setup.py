"""The wheel carries the bundled rulebooks and examples as package data.

They stay at the top of the clone (``rulebooks/``, ``examples/``: every test, doc and branch
names them there), and the build copies them into the package as ``rulekit/_bundled/``,
where ``rulekit.bundled`` finds them in an installed wheel. An editable install copies
nothing: ``rulekit.bundled`` reads the clone's folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLED = ("rulebooks", "examples")


class BuildPyWithRulebooks(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "rulekit" / "_bundled"
        for name in BUNDLED:
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(
                HERE / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )


setup(cmdclass={"build_py": BuildPyWithRulebooks})
