"""`make bench-reference` copies a whole `make bench` run into bench/results, or nothing: a
run cut short leaves files missing or marked partial, and copying them would mix new figures
with old ones. make runs from a scratch folder (it copies into ITS bench/results), so a
regression cannot overwrite the tracked figures."""

import re
import subprocess

import pytest

from conftest import REPO


def bench_files() -> list[str]:
    text = (REPO / "Makefile").read_text()
    block = re.search(r"^BENCH_FILES := (.*?)\n\S", text, re.S | re.M)
    assert block, "BENCH_FILES not found in the Makefile"
    return block.group(1).replace("\\", " ").split()


def bench_reference(out) -> subprocess.CompletedProcess:
    scratch = out.parent / "checkout"
    (scratch / "bench" / "results").mkdir(parents=True, exist_ok=True)
    return subprocess.run(["make", "-s", "-C", str(scratch), "-f", str(REPO / "Makefile"),
                           "bench-reference", f"BENCH_OUT={out}"],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def whole_run(tmp_path):
    out = tmp_path / "bench-results"
    out.mkdir()
    for f in bench_files():
        (out / f).write_text('{"complete": true}\n')
    return out


def test_a_whole_run_is_copied(whole_run):
    p = bench_reference(whole_run)
    assert p.returncode == 0, p.stderr
    copied = whole_run.parent / "checkout" / "bench" / "results"
    assert sorted(f.name for f in copied.iterdir()) == sorted(bench_files())


def test_a_partial_file_is_refused_and_nothing_copied(whole_run):
    (whole_run / "pmd.json").write_text('{\n  "complete": false,\n  "runs": {}\n}\n')
    p = bench_reference(whole_run)
    assert p.returncode != 0
    assert f"{whole_run}/pmd.json is partial" in p.stderr and "nothing copied" in p.stderr
    assert not any((whole_run.parent / "checkout" / "bench" / "results").iterdir())


def test_a_missing_file_is_refused(whole_run):
    (whole_run / "emu_scale.json").unlink()
    p = bench_reference(whole_run)
    assert p.returncode != 0 and f"{whole_run}/emu_scale.json is missing" in p.stderr
