"""Generated source as make lint's ruff leaves it, so a file written again compares equal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def formatted(source: str, path: Path) -> str:
    """`source` as make lint's ruff leaves it (imports sorted, lines wrapped)."""
    ruff = [str(Path(sys.executable).parent / "ruff")]
    name = ["--stdin-filename", str(path), "-"]
    for command in (["check", "--fix", "--quiet", "--exit-zero"], ["format", "--quiet"]):
        done = subprocess.run(  # noqa: S603 - the venv's ruff
            ruff + command + name, input=source, capture_output=True, text=True, check=True
        )
        source = done.stdout
    return source
