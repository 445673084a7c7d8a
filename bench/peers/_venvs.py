"""The peers' virtualenvs: made on first use under ``bench/.peers/`` (ignored by git), reused while
their requirement lists stay the same, never part of Spool's own dependencies.

arq 0.28 needs redis-py below 6 and Celery 5.7 needs 6.4 or later, so arq has a virtualenv of its
own; every other peer's pins fit together in one.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["GROUPS", "VENVS", "Venv", "ensure", "is_current"]

VENVS = Path(__file__).resolve().parent.parent / ".peers"
_STAMP = "requirements.txt"


@dataclasses.dataclass(frozen=True, slots=True)
class Venv:
    """One virtualenv: its name (a folder under ``bench/.peers``) and what pip installs into it."""

    name: str
    requirements: tuple[str, ...]

    def folder(self, root: Path = VENVS) -> Path:
        """Where it lives."""
        return root / self.name

    def stamp_text(self) -> str:
        """What the stamp file holds once the requirements are installed: one per line."""
        return "".join(f"{requirement}\n" for requirement in self.requirements)


GROUPS = {
    "peers": Venv(
        "peers",
        (
            "saq==0.26.4",
            "rq==2.12.0",
            "dramatiq[redis]==2.2.1",
            "celery[redis]==5.7.0",
            "taskiq==0.13.0",
            "taskiq-redis==1.2.4",
            "faststream[redis,cli]==0.7.8",
        ),
    ),
    "arq": Venv("arq", ("arq==0.28.0",)),
}


def _python(folder: Path) -> Path:
    return folder / "bin" / "python"


def is_current(venv: Venv, root: Path = VENVS) -> bool:
    """Whether the virtualenv exists with exactly its requirement list installed."""
    folder = venv.folder(root)
    stamp = folder / _STAMP
    return _python(folder).exists() and stamp.exists() and stamp.read_text() == venv.stamp_text()


def ensure(venv: Venv, root: Path = VENVS, *, python: str = sys.executable) -> Path:
    """The ``bin`` folder of ``venv``, made (or remade, when its requirements changed) first."""
    folder = venv.folder(root)
    if not is_current(venv, root):
        if folder.exists():
            shutil.rmtree(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        print(f"  making the {venv.name} virtualenv in {folder} ...", flush=True)
        subprocess.run([python, "-m", "venv", str(folder)], check=True)
        _pip(folder, venv.requirements)
        # Written last: a virtualenv whose install failed halfway is made again next time.
        (folder / _STAMP).write_text(venv.stamp_text())
    return folder / "bin"


def _pip(folder: Path, requirements: Sequence[str]) -> None:
    # The venv's own pip, by package name: whatever index the machine's pip is set up with.
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    subprocess.run(
        [str(_python(folder)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        + list(requirements),
        check=True,
        env=environment,
    )
