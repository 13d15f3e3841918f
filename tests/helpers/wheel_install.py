"""Builds paimon_sql's wheel from a clean copy of this tree and installs it into a new virtualenv
(no editable install, no source tree on the path): what ``pip install`` gives a user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tracked_files(root: Path = ROOT) -> list[str]:
    """The files of a fresh clone (plus new files not yet committed, but nothing git ignores:
    no built jar, no virtualenv)."""
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        capture_output=True, check=True,
    ).stdout.decode()
    return sorted(f for f in out.split("\0") if f and (root / f).is_file())


def clean_copy(dest: Path) -> Path:
    for rel in tracked_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    return dest


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)  # type: ignore[call-overload]
    if run.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}")
    return run  # type: ignore[no-any-return]


def build_sdist(src: Path, dest: Path) -> Path:
    """The sdist of the tree at ``src``, made by the project's build backend (what ``python -m build``
    calls first)."""
    code = ("import sys; sys.path.insert(0, 'build_backend'); import paimon_sql_build as b; "
            f"print(b.build_sdist({str(dest)!r}))")
    _run([sys.executable, "-c", code], cwd=str(src), timeout=300)
    sdists = list(dest.glob("paimon_sql-*.tar.gz"))
    assert len(sdists) == 1, sdists
    return sdists[0]


def build_wheel(src: Path, dist: Path) -> Path:
    """``pip wheel`` of a source tree or an sdist, with build isolation (setuptools and pyspark in
    pip's own build env)."""
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
          "-w", str(dist), str(src)], cwd=str(dist.parent), timeout=900)
    wheels = list(dist.glob("paimon_sql-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def install_into_new_venv(wheel: Path, env_dir: Path) -> Path:
    """A new virtualenv with only the wheel (and its dependencies) installed; its python."""
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    py = env_dir / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheel)],
         cwd=str(env_dir))
    return py
