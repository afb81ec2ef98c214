"""scripts/lint.sh checks the project's own C files: in a tree without .git (a tarball, `git
archive`) it must not pick up third-party sources such as the .venv's numpy headers or a build
tree, which made `make lint` fail on a clean export."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_an_export_without_git_lists_only_the_projects_c(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "lint.sh", tmp_path / "scripts" / "lint.sh")
    for f in ("lib/ring.c", "include/rxb/ring.h", "emu/tests/t.c",
              ".venv/lib/python3.11/site-packages/numpy/core/include/numpy/npy.h",
              "build/CMakeFiles/x/CMakeCCompilerId.c", "build-debug/y.c", ".git-like/z.c"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("int x;\n")
    p = subprocess.run(["bash", "scripts/lint.sh", "--list-c"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["emu/tests/t.c", "include/rxb/ring.h", "lib/ring.c"]


def test_a_checkout_lists_the_tracked_c():
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        return
    p = subprocess.run(["bash", "scripts/lint.sh", "--list-c"], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    tracked = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True, text=True,
                             cwd=ROOT, check=True).stdout.split()
    assert p.returncode == 0 and p.stdout.split() == tracked
