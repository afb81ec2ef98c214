"""`rxb compare` against the real engine: every interface, balanced and imbalanced."""

import pytest

from conftest import run_cli
from rxbisect.engines import engine
from rxbisect.errors import EngineError
from rxbisect.study import compare

try:
    engine.find_engine()
    HAVE = True
except EngineError:  # pragma: no cover - depends on the build
    HAVE = False

pytestmark = pytest.mark.skipif(not HAVE, reason="rxb-sim is not built (run `make build` or "
                                "set RXB_SIM_BIN)")


def test_compare_quick_json_and_table(tmp_path):
    points = compare.run(("run.duration_ms=2",), quick=True)
    assert [(p.arch, p.scenario) for p in points] == [
        (a, s) for s in compare.SCENARIOS for a in compare.ARCHS]
    for p in points:
        m = p.record["metrics"]
        assert m["conservation"] == {"packets_ok": True, "buffers_ok": True}
        assert p.record["arch"] == p.arch
    imb = [p for p in points if p.scenario == "imbalanced"][0].record
    assert imb["params"]["traffic.pattern"] == "target"
    text = compare.table(points)
    assert "rxbisect" in text and "imbalanced" in text and "DDIO hit" in text
    png = compare.plot(points, tmp_path / "plots")
    assert png.is_file() and png.stat().st_size > 10000


def test_compare_cli_rejects_bad_set():
    p = run_cli("compare", "--quick", "--set", "arch.ax_size=3")
    assert p.returncode == 2
    assert "arch.ax_size" in p.stderr


def test_compare_header_names_the_runs_as_resolved():
    """The header is read from the resolved scenarios, so --quick and --set show in it."""
    assert compare.describe(()).startswith("10 ms runs, 16 cores, 2 NIC(s) offered 100 Gbps")
    assert "balanced = LB, 1518 B" in compare.describe(())
    text = compare.describe(("workload.nf=nat", "traffic.packet_bytes=512",
                             "run.duration_ms=2", "run.warmup_ms=0.5"), quick=True)
    assert text.startswith("2 ms runs") and "balanced = NAT, 512 B" in text
    assert "imbalanced = NAT, 20 % of packets (64 B)" in text and text.endswith("512 B")
    assert compare.describe((), quick=True).startswith("3 ms runs")
