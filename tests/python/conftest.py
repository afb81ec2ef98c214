"""Shared helpers: run the CLI in a subprocess, and write fake engines.

A fake engine is a tiny Python script a test writes into its temp dir and
points RXB_SIM_BIN at. It exercises the Python side of the contract
(docs/engine-contract.md) without the C simulator; none ships in the package.
"""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def load_script(path: str):
    """A script of the repository (bench/, scripts/) as a module, by its path from the root:
    they are not part of the package, and their tests call their functions."""
    spec = importlib.util.spec_from_file_location(Path(path).stem, REPO / path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def valid_output(arch: str = "rxbisect", seed: int = 1) -> dict:
    """A well-formed engine output: 1000 offered = 990 delivered + 6 dropped + 4 in flight."""
    return {
        "params": {"arch.name": arch, "run.seed": seed, "traffic.rate_gbps": 100.0},
        "metrics": {
            "offered_packets": 1000, "delivered_packets": 990, "in_flight_packets": 4,
            "offered_gbps": 200.0, "throughput_gbps": 198.0, "throughput_mpps": 16.3,
            "drop_rate": 0.006,
            "drops_by_cause": {"no_rx_desc": 0, "no_ax_buf": 5, "no_bx_slot": 1, "cr_full": 0,
                               "pipeline": 0},
            "latency_us_mean": 3.25, "latency_us_p50": 2.5, "latency_us_p99": 9.75,
            "latency_us_p999": 14.0,
            "ring_occupancy": {"mean": 12.5, "max": 301},
            "io_working_set_mib": 4.0, "ddio_hit_rate": 0.975, "llc_hit_rate": None,
            "mem_bw_gibps": 3.5,
            "cycles_per_packet": {"rx": 40, "sync": 0, "alloc": 25, "app": 310, "total": 375},
            "conservation": {"packets_ok": True, "buffers_ok": True},
            "per_core": [{"core": 0, "delivered": 62}],
        },
        "sim_packets": 1000, "sim_wall_s": 0.01,
    }


PRELUDE = """\
import json, sys, time
assert sys.argv[1] == "--config", sys.argv
cfg = json.load(open(sys.argv[2]))
OUT = {out}
OUT["params"]["arch.name"] = cfg["arch"]["name"]
OUT["params"]["run.seed"] = cfg["run"]["seed"]
"""


@pytest.fixture
def make_engine(tmp_path, monkeypatch):
    """make_engine(body) -> path: a fake rxb-sim running `body` after PRELUDE
    (which loads the config into `cfg` and a valid output into `OUT`);
    RXB_SIM_BIN points at it."""
    def make(body: str, name: str = "rxb-sim") -> Path:
        path = tmp_path / name
        path.write_text(f"#!{sys.executable}\n"
                        + PRELUDE.format(out=repr(valid_output()))
                        + textwrap.dedent(body))
        path.chmod(0o755)
        monkeypatch.setenv("RXB_SIM_BIN", str(path))
        return path
    return make


GOOD_ENGINE = """\
sys.stderr.write("progress 0.5\\n"); sys.stderr.flush()
sys.stderr.write("warning: fake engine\\n")
sys.stderr.write("progress 1\\n")
print(json.dumps(OUT))
"""


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None):
    """Run `python -m rxbisect ARGS` like a user would; returns CompletedProcess."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "rxbisect", *args], capture_output=True,
                          text=True, env=full_env, cwd=cwd or REPO, timeout=120)


def cli_json(*args: str, **kw):
    p = run_cli(*args, **kw)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _engine_missing() -> str:
    from rxbisect.engines import engine
    from rxbisect.errors import EngineError
    try:
        engine.find_engine()
    except EngineError as e:  # depends on the build
        return str(e)
    return ""


# Tests of the real simulator: `pytestmark = needs_engine` skips them, saying why, when
# rxb-sim is not built.
needs_engine = pytest.mark.skipif(bool(_engine_missing()), reason="rxb-sim is not built (run "
                                  "`make build` or set RXB_SIM_BIN)")
