"""bench/emu_ab.py, the two-build comparison: its ratios, the study set-up's lcore counts, its
errors, and one short run of the real rxb-emu against itself."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script
from rxbisect.engines import emu
from rxbisect.errors import EngineError

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "emu_ab.py"
emu_ab = load_script("bench/emu_ab.py")

try:
    BIN = emu.find_emulator()
except EngineError:  # pragma: no cover - depends on the build
    BIN = None


def sample(what, key, build, rnd, value, lower=True):
    return {"what": what, "key": key, "build": build, "round": rnd, "value": value,
            "lower_is_better": lower}


def test_summary_is_medians_their_ratio_and_the_median_paired_ratio():
    samples = [sample("dispatch", "privring", "base", 1, 100.0),
               sample("dispatch", "privring", "new", 1, 80.0),
               sample("dispatch", "privring", "base", 2, 200.0),
               sample("dispatch", "privring", "new", 2, 190.0),
               sample("dispatch", "privring", "base", 3, 120.0),
               sample("dispatch", "privring", "new", 3, 60.0),
               sample("gen", "64B", "base", 1, 4.0, lower=False),
               sample("gen", "64B", "new", 1, 5.0, lower=False),
               sample("gen", "1518B", "base", 1, 3.0, lower=False)]  # no new: no row
    rows = {(r["what"], r["key"]): r for r in emu_ab.summarise(samples)}
    assert set(rows) == {("dispatch", "privring"), ("gen", "64B")}
    d = rows[("dispatch", "privring")]
    assert (d["base"], d["new"]) == (120.0, 80.0)
    assert d["new_over_base"] == round(80 / 120, 3)
    assert d["paired"] == 0.8  # median of 0.8, 0.95, 0.5
    assert d["rounds"] == 3 and d["lower_is_better"]
    g = rows[("gen", "64B")]
    assert g["new_over_base"] == 1.25 and g["paired"] == 1.25 and not g["lower_is_better"]


def test_a_base_that_measured_zero_prints_no_ratio(capsys):
    samples = [sample("study", "rxbisect Mpps", "base", 1, 0.0, lower=False),
               sample("study", "rxbisect Mpps", "new", 1, 9.5, lower=False)]
    rows = emu_ab.summarise(samples)
    assert rows[0]["new_over_base"] is None and rows[0]["paired"] is None
    emu_ab.print_summary(rows)
    line = capsys.readouterr().out.splitlines()[1].split()
    assert line[-3:] == ["n/a", "n/a", "higher"] and line[-5:-3] == ["0.00", "9.50"]


def test_study_lcores_fit_the_cpus_and_play_whole_or_evenly_split_ports():
    assert emu_ab.study_gen_lcores(2, 2) is None
    assert emu_ab.study_gen_lcores(11, 2) is None
    assert emu_ab.study_gen_lcores(12, 2) == 1
    assert emu_ab.study_gen_lcores(16, 2) == 4
    assert emu_ab.study_gen_lcores(16, 3) == 4
    assert emu_ab.study_gen_lcores(16, 4) == 2
    for nic in (1, 2, 3, 4):
        for cpus in range(11 + nic, 65):
            g = emu_ab.study_gen_lcores(cpus, nic)
            assert 1 + emu_ab.STUDY_WORKERS + nic + g <= cpus
            assert g <= emu_ab.STUDY_NICS or g % emu_ab.STUDY_NICS == 0


def test_study_lcores_on_a_big_server_stay_within_what_the_emulator_accepts():
    # one generator lcore per physical queue at most, and a port has at most one queue per
    # worker: a many-core server must not ask for every CPU left (rxb-emu refuses 10 and more)
    for nic in (1, 2, 4):
        for cpus in (21, 32, 64, 128, 512):
            g = emu_ab.study_gen_lcores(cpus, nic)
            assert g == emu_ab.STUDY_WORKERS, (cpus, nic, g)


@pytest.mark.skipif(BIN is None, reason="rxb-emu is not built")
def test_the_big_server_study_set_up_passes_the_emulators_checks():
    # the emulator's own check, not a copy of it: the bound it names when refusing more is the
    # cap (a config error stops before the EAL starts, so this costs no run)
    g = emu_ab.study_gen_lcores(64, emu_ab.STUDY_NICS)
    for arch in ("privring", "shring", "rxbisect"):
        base = [str(BIN), "--set", f"arch.name={arch}", "--set", "emu.source=gen",
                "--set", f"system.nics={emu_ab.STUDY_NICS}",
                "--set", f"system.cores={emu_ab.STUDY_WORKERS}",
                "--set", f"emu.nic_lcores={emu_ab.STUDY_NICS}"]
        over = subprocess.run([*base, "--set", f"emu.gen_lcores={2 * g}"], capture_output=True,
                              text=True, timeout=60)
        assert over.returncode != 0 and f"allowed: 1..{g}" in over.stderr, over.stderr


def run_script(*args: str):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_bad_input_names_the_option_and_what_is_allowed(tmp_path):
    p = run_script("--base", str(tmp_path / "none"), "--new", sys.executable)
    assert p.returncode != 0 and "--base" in p.stderr and "not an executable" in p.stderr
    p = run_script("--base", sys.executable, "--new", sys.executable, "--what", "gen,speed")
    assert p.returncode != 0 and "--what gen,speed" in p.stderr
    assert "dispatch, gen, study" in p.stderr
    p = run_script("--base", sys.executable, "--new", sys.executable, "--rounds", "0")
    assert p.returncode != 0 and "--rounds 0" in p.stderr


@pytest.mark.skipif(BIN is None, reason="rxb-emu is not built (set RXB_EMU_BIN)")
def test_one_round_of_the_generator_against_itself(tmp_path):
    out = tmp_path / "ab.json"
    p = run_script("--base", str(BIN), "--new", str(BIN), "--rounds", "1", "--what", "gen",
                   "--ms", "80", "--out", str(out))
    if p.returncode != 0 and "rte_eal_init" in p.stderr:
        pytest.skip(f"DPDK EAL cannot start here: {p.stderr.strip().splitlines()[-1]}")
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    got = {(s["key"], s["build"]) for s in doc["samples"]}
    assert got == {(f"{n}B", b) for n in emu_ab.GEN_SIZES for b in ("base", "new")}
    assert all(s["value"] > 0 for s in doc["samples"])
    assert [r["key"] for r in doc["summary"]] == [f"{n}B" for n in emu_ab.GEN_SIZES]
    assert "64B" in p.stdout and "higher" in p.stdout
