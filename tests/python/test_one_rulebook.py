"""One rulebook: a rule that involves several keys is stated once, in the scenario library
(scenario/scn_rules.c), and every consumer refuses the same bad input with the same message:
the front end (through the library's binding), rxb-sim (a config that skips the front end's
check), rxb-emu (its own --set) and the driver net_rxbisect (its devargs at configure).

Each row is one rule: the scenario keys that break it, the valid value the simulator's config
is built with before the bad one is written into it, and the driver's devargs where the rule
binds the driver (the Rx queue count is its system.cores).
"""

import json
import os
import subprocess
from dataclasses import dataclass

import pytest

from conftest import REPO
from rxbisect.engines import emu, engine
from rxbisect.errors import RxbError
from rxbisect.vocab import scenario
from testpmd import TESTPMD, TestPmd, pmd_so

ONE_NIC = ("system.nics=1",)


@dataclass(frozen=True)
class Rule:
    name: str
    sets: tuple[str, ...]  # the bad input, as --set KEY=VALUE
    valid: tuple[str, ...]  # the same keys with values the rule accepts (the sim's config base)
    devargs: str | None = None  # the driver's spelling, with `rxq` Rx queues
    rxq: int = 0


RULES = [
    Rule("share degree divides each NIC",
         ("arch.name=shring", "system.cores=4", *ONE_NIC, "arch.share_degree=3"),
         ("arch.name=shring", "system.cores=4", *ONE_NIC, "arch.share_degree=2"),
         "iface=shring,share=3", 4),
    Rule("groups divide the cores",
         ("arch.name=rxbisect", "arch.association=groups", "arch.groups=3", "system.cores=4",
          *ONE_NIC),
         ("arch.name=rxbisect", "arch.association=groups", "arch.groups=2", "system.cores=4",
          *ONE_NIC),
         "iface=rxbisect,assoc=groups,groups=3", 4),
    Rule("warm-up ends before the run", ("run.warmup_ms=10", "run.duration_ms=5"),
         ("run.warmup_ms=1", "run.duration_ms=5")),
    Rule("core ids exist", ("system.cores=4", *ONE_NIC, "system.stalled_cores=[9]"),
         ("system.cores=4", *ONE_NIC, "system.stalled_cores=[3]")),
]
IDS = [r.name for r in RULES]


def the_message(rule: Rule) -> str:
    """The front end's refusal: the library's message, word for word."""
    with pytest.raises(RxbError) as refused:
        scenario.load_resolved(None, rule.sets)
    return str(refused.value)


def last_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines, "no message at all"
    return lines[-1]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_the_front_end_gives_the_librarys_message(rule):
    msg = the_message(rule)
    assert "; allowed: " in msg and msg.split(" = ")[0] in {s.split("=")[0] for s in rule.sets}, msg
    scenario.load_resolved(None, rule.valid)  # the valid twin passes: the rule, not a key range


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rxb_sim_refuses_a_config_with_the_same_message(rule, tmp_path):
    cfg = engine.build_config(scenario.load_resolved(None, rule.valid))
    for s in rule.sets:  # write the bad values past the front end's check
        full, value = s.split("=", 1)
        sec, key = full.split(".", 1)
        cfg[sec][key] = json.loads(value) if value[0] in "[0123456789" else value
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    p = subprocess.run([str(engine.find_engine()), "--config", str(path)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode != 0, p.stdout[-500:]
    assert last_error(p.stderr).endswith(the_message(rule)), p.stderr


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rxb_emu_refuses_the_same_sets_with_the_same_message(rule):
    try:
        binary = emu.find_emulator()
    except RxbError as e:
        pytest.skip(str(e))
    cmd = [str(binary), "--quiet-keys"] + [a for s in rule.sets for a in ("--set", s)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert last_error(p.stderr) == f"error: {the_message(rule)}", p.stderr


@pytest.mark.skipif(not pmd_so().exists() or not os.path.exists(TESTPMD),
                    reason="net_rxbisect or dpdk-testpmd not built/installed")
@pytest.mark.parametrize("rule", [r for r in RULES if r.devargs], ids=lambda r: r.name)
def test_the_driver_refuses_the_same_design_with_the_same_message(rule):
    rxq = f"--rxq={rule.rxq}"
    with TestPmd(f"port=net_null0,{rule.devargs}", [rxq, f"--txq={rule.rxq}"]) as t:
        t.quit() if t.started else t.proc.wait(30)
    want = f"with {rule.rxq} Rx queues (system.cores = {rule.rxq}): {the_message(rule)}"
    errors = [ln for ln in t.log.splitlines() if "Rx queues (system.cores" in ln]
    assert len(errors) == 1 and errors[0].endswith(want), t.log


def test_every_rule_row_names_a_rule_of_the_library():
    """The rows above are rules the library states (names from rxb_scn_rule_name)."""
    from rxbisect import _native
    names = set(_native.rule_names())
    assert {r.name for r in RULES} <= names, names
    assert REPO.joinpath("scenario", "scn_rules.c").is_file()
