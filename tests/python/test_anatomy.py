"""The per-packet stall anatomy (`metrics.anatomy`, docs/simulator.md "Per-packet stall
anatomy"): its rendering for `rxb sim --explain`, `rxb compare --explain` and `rxb report`, its
check, and its place in the record contract — on hand-built records whose numbers are known,
and end to end on the real engine when it reports one."""

import copy
import hashlib
import json

import pytest

from conftest import GOOD_ENGINE, needs_engine, run_cli, valid_output
from rxbisect.engines import engine
from rxbisect.errors import EngineError
from rxbisect.output import html_report, records
from rxbisect.study import anatomy, compare


def access(name, ns, count, l2, llc, dram, latency):
    return {"name": name, "kind": "access", "ns": ns, "count": count, "l2": l2, "llc": llc,
            "dram": dram, "latency_ns": latency}


# main: 30 + 12 + 95 + 900 + 3 + 0 + 160 = 1200 ns; target: 50 + 950 = 1000 ns
ANATOMY = {
    "target": {"cores": 2, "packets": 5000, "service_ns": 1000.0, "components": [
        {"name": "rx_call", "kind": "cpu", "ns": 50.0},
        {"name": "compute", "kind": "cpu", "ns": 950.0}]},
    "main": {"cores": 8, "packets": 123456, "service_ns": 1200.0, "busy_ns": 1200.0,
             "components": [
                 {"name": "rx_call", "kind": "cpu", "ns": 30.0},
                 access("cqe", 12.0, 1.0, 0.0, 0.9, 0.1, 40.2),
                 access("flow_bucket", 95.0, 1.0, 0.0, 0.02, 0.98, 97.0),
                 {"name": "compute", "kind": "cpu", "ns": 900.0},
                 {"name": "tx_full_wait", "kind": "wait", "ns": 3.0},
                 {"name": "sync", "kind": "sync", "ns": 0.0},
                 {"name": "mystery_stall", "kind": "wait", "ns": 160.0}]},
}


def metrics(anat=ANATOMY):
    m = copy.deepcopy(valid_output()["metrics"])
    if anat is not None:
        m["anatomy"] = copy.deepcopy(anat)
    return m


def lines_of(text, start):
    return [ln for ln in text.splitlines() if ln.startswith(start)]


# ---------------------------------------------------------------- rendering


def test_explain_has_a_row_per_component_the_total_and_shares():
    text = anatomy.explain(metrics())
    main = text.index("Core class main: 8 cores, 123,456 packets, service time 1,200.0 "
                      "ns/packet")
    target = text.index("Core class target: 2 cores, 5,000 packets, service time 1,000.0 "
                        "ns/packet")
    assert main < target  # known classes in their order, not the record's
    for c in ANATOMY["main"]["components"] + ANATOMY["target"]["components"]:
        assert lines_of(text, c["name"] + " "), c["name"]
    assert lines_of(text, "compute")[0].split()[1:] == ["cpu", "900.0", "75.0", "%"]
    assert lines_of(text, "compute")[1].split()[1:] == ["cpu", "950.0", "95.0", "%"]
    assert lines_of(text, "mystery_stall")[0].split()[1:] == ["wait", "160.0", "13.3", "%"]
    # access rows: count, L2/LLC/DRAM shares, mean latency
    assert lines_of(text, "flow_bucket")[0].split()[1:] == [
        "access", "95.0", "7.9", "%", "1.00", "0.0", "%", "2.0", "%", "98.0", "%", "97.0"]
    assert lines_of(text, "cqe")[0].split()[-1] == "40.2"
    totals = lines_of(text, "total (service time)")
    assert [t.split()[3:] for t in totals] == [["1,200.0", "100.0", "%"],
                                                ["1,000.0", "100.0", "%"]]
    assert "does not add up" not in text


def test_explain_lists_what_does_not_add_up():
    m = metrics()
    m["anatomy"]["main"]["components"][3]["ns"] = 800.0  # compute: the sum is 1100, not 1200
    text = anatomy.explain(m)
    assert "The anatomy does not add up:" in text
    assert "anatomy.main: components sum to 1100 ns, service_ns is 1200 ns" in text
    assert lines_of(text, "total (service time)")[0].split()[3:] == ["1,200.0", "91.7", "%"]


@pytest.mark.parametrize("m", [metrics(None), {}, metrics({}), {"anatomy": None}])
def test_missing_anatomy_is_one_clear_line(m):
    assert anatomy.explain(m) == anatomy.MISSING + "\n"
    assert anatomy.side_by_side([("a", m), ("b", m)]) == anatomy.MISSING + "\n"
    assert anatomy.check_anatomy(metrics(None)) == []


def test_side_by_side_one_column_per_design():
    shring = copy.deepcopy(ANATOMY)
    comps = shring["main"]["components"]
    comps.insert(1, {"name": "dma_visible_wait", "kind": "wait", "ns": 20.0})
    comps[-2]["ns"] = 50.0  # sync
    shring["main"]["service_ns"] = 1270.0
    del shring["target"]
    text = anatomy.side_by_side([("privring", metrics()), ("shring", metrics(shring)),
                                 ("emulated", metrics(None))])
    assert text.index("Core class main, ns per packet:") < text.index("Core class target")
    head = lines_of(text, "component")
    assert [h.split() for h in head] == [["component", "privring", "shring", "emulated"]] * 2
    main = text.split("Core class target")[0]
    # a component only one design has sits where that design has it, "-" for the others
    names = [ln.split()[0] for ln in main.splitlines()[3:] if ln.strip()]
    assert names[:3] == ["rx_call", "dma_visible_wait", "cqe"]
    assert lines_of(main, "dma_visible_wait")[0].split() == ["dma_visible_wait", "-", "20.0", "-"]
    assert lines_of(main, "sync")[0].split() == ["sync", "0.0", "50.0", "-"]
    assert lines_of(main, "compute")[0].split() == ["compute", "900.0", "900.0", "-"]
    assert lines_of(main, "service time")[0].split() == ["service", "time", "1,200.0",
                                                         "1,270.0", "-"]
    target = text.split("Core class target")[1]
    assert lines_of(target, "service time")[0].split() == ["service", "time", "1,000.0", "-",
                                                           "-"]
    assert "No anatomy in the records of: emulated." in text


def test_compare_explain_groups_by_traffic():
    pts = [compare.Point(a, s, {"metrics": metrics() if a == "privring" else metrics(None)})
           for s in compare.SCENARIOS for a in ("privring", "rxbisect")]
    text = compare.explain(pts)
    assert text.index("balanced traffic") < text.index("imbalanced traffic")
    assert text.count("Core class main, ns per packet:") == 2
    assert text.count("No anatomy in the records of: rxbisect.") == 2


# ---------------------------------------------------------------- the check


def test_check_accepts_a_good_anatomy():
    assert anatomy.check_anatomy(metrics()) == []


@pytest.mark.parametrize("change, problem", [
    (lambda a: a["main"]["components"][0].update(ns=50.0),
     "anatomy.main: components sum to 1220 ns, service_ns is 1200 ns (more than 1 % apart)"),
    (lambda a: a["main"].update(busy_ns=1300.0),
     "anatomy.main: service_ns 1200 ns, but the cores measured busy_ns 1300 ns"),
    (lambda a: a["main"]["components"][2].update(llc=0.5),
     "anatomy.main.flow_bucket: shares l2 + llc + dram = 1.48, not 1"),
    (lambda a: a["main"]["components"][1].update(l2=-0.1, llc=1.0),
     "anatomy.main.cqe: shares l2=-0.1 not in [0, 1]"),
    (lambda a: a["main"]["components"][1].update(dram=1.1, llc=-0.1),
     "anatomy.main.cqe: shares llc=-0.1, dram=1.1 not in [0, 1]"),
    (lambda a: a["target"]["components"][0].update(ns=-50.0),
     "anatomy.target.rx_call.ns: expected a number >= 0, got -50.0"),
    (lambda a: a["target"]["components"][0].update(kind="idle"),
     "anatomy.target.rx_call: kind 'idle' is not one of cpu, access, wait, sync"),
    (lambda a: a["main"]["components"][1].pop("latency_ns"),
     "anatomy.main.cqe.latency_ns: expected a number >= 0, got None"),
    (lambda a: a["target"]["components"].append({"name": "compute", "kind": "cpu", "ns": 0}),
     "anatomy.target.compute: listed twice"),
    (lambda a: a["target"].pop("components"),
     "anatomy.target.components: expected a list, got None"),
    (lambda a: a.update(slow=[]), "anatomy.slow: expected an object, got []"),
])
def test_check_catches(change, problem):
    m = metrics()
    change(m["anatomy"])
    assert any(p.startswith(problem) for p in anatomy.check_anatomy(m)), \
        anatomy.check_anatomy(m)


def test_check_tolerances():
    m = metrics()
    m["anatomy"]["main"]["components"][3]["ns"] = 911.0  # 0.92 % over: within 1 %
    m["anatomy"]["main"]["busy_ns"] = 1211.0
    m["anatomy"]["main"]["components"][1]["dram"] = 0.105  # shares sum to 1.005
    assert anatomy.check_anatomy(m) == []
    m["anatomy"]["main"]["components"][3]["ns"] = 913.0  # 1.08 % over
    assert len(anatomy.check_anatomy(m)) == 1
    assert anatomy.check_anatomy({"anatomy": 3}) == [
        "anatomy: expected an object of core classes, got 3"]


# ---------------------------------------------------------------- the record contract


def test_engine_and_records_take_anatomy_as_optional():
    assert "anatomy" in engine.OPTIONAL_METRICS and "anatomy" not in engine.REQUIRED_METRICS
    assert "anatomy" in records.OPTIONAL_METRICS
    assert "anatomy" not in records.REQUIRED_METRICS
    out = valid_output()
    assert "anatomy" not in engine.parse_output(json.dumps(out)).metrics
    out["metrics"]["anatomy"] = ANATOMY
    assert engine.parse_output(json.dumps(out)).metrics["anatomy"] == ANATOMY
    out["metrics"]["anatomy"] = [1]
    with pytest.raises(EngineError, match="metrics.anatomy should be object"):
        engine.parse_output(json.dumps(out))


def record(arch="privring", seed=1, anat=ANATOMY, nf="lb"):
    # one point per design, NF and seed, a 16-hex-digit id as a sweep makes them
    point = hashlib.sha256(f"{arch} {nf} {seed}".encode()).hexdigest()[:16]
    rec = {"experiment": "anat", "arch": arch, "point_id": point, "seed": seed,
           "params": {"arch.name": arch, "run.seed": seed, "workload.nf": nf},
           "metrics": metrics(anat), "sim_packets": 1000, "sim_wall_s": 0.01, "config": {},
           "provenance": {"commit": None, "dirty": None, "engine_build": "0" * 12,
                          "profile_hash": "0" * 16, "costs_hash": "0" * 16,
                          "command": "rxb sim", "host": "h",
                          "date": "2026-01-01T00:00:00+00:00"}}
    return rec


def test_record_problems_accept_absent_and_refuse_a_non_object():
    assert records.problems(record()) == []
    assert records.problems(record(anat=None)) == []
    bad = record()
    bad["metrics"]["anatomy"] = "fast"
    assert records.problems(bad) == ["metrics.anatomy: expected an object, got 'fast'"]


# ---------------------------------------------------------------- the report


def test_report_shows_where_each_packets_time_goes(tmp_path):
    recs = [record("privring", 1), record("rxbisect", 1, anat=None),
            record("privring", 2, nf="nat")]
    (tmp_path / "anat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (tmp_path / "plain.jsonl").write_text(json.dumps(record(anat=None)) + "\n")
    page = html_report.render(tmp_path, experiments=tmp_path, warn=lambda m: None).read_text()
    anat, plain = page.split('<section id="anat">')[1], page.split('<section id="plain">')[1]
    assert "Where each packet's time goes" in anat.split("</section>")[0]
    assert "Where each packet's time goes" not in plain.split("</section>")[0]
    assert "2 of 3 records carry one" in anat
    # labelled by design, the varied parameters and the seed; folded (two records)
    assert "<details><summary>privring, workload.nf=lb, seed 1</summary>" in anat
    assert "<details><summary>privring, workload.nf=nat, seed 2</summary>" in anat
    body = anat.split("seed 1</summary>")[1].split("</details>")[0]
    assert "<p>Core class main: 8 cores, 123,456 packets, service time 1,200.0 ns/packet</p>" \
        in body
    for h in anatomy.HEADERS:
        assert f"<th>{h}</th>" in body
    for c in ANATOMY["main"]["components"]:
        assert f"<td>{c['name']}</td>" in body
    assert ("<tr><td>flow_bucket</td><td>access</td><td>95.0</td><td>7.9 %</td><td>1.00</td>"
            "<td>0.0 %</td><td>2.0 %</td><td>98.0 %</td><td>97.0</td></tr>") in body
    assert "<tr><td>total (service time)</td><td></td><td>1,200.0</td><td>100.0 %</td>" in body


# ---------------------------------------------------------------- the CLI (fake engine)

WITH_ANATOMY = f"""\
OUT["metrics"]["anatomy"] = {ANATOMY!r}
if cfg["arch"]["name"] == "shring":
    OUT["metrics"]["anatomy"]["main"]["components"].insert(
        1, {{"name": "dma_visible_wait", "kind": "wait", "ns": 20.0}})
    OUT["metrics"]["anatomy"]["main"]["service_ns"] = 1220.0
print(json.dumps(OUT))
"""


def test_sim_explain_prints_the_tables(make_engine):
    make_engine(WITH_ANATOMY)
    p = run_cli("sim", "--explain", "--no-progress")
    assert p.returncode == 0, p.stderr
    usual, _, explained = p.stdout.partition("Where each packet's time goes")
    assert "Throughput" in usual and "Conservation" in usual
    assert "Core class main: 8 cores, 123,456 packets" in explained
    assert len(lines_of(explained, "total (service time)")) == 2
    p = run_cli("sim", "--json", "--explain", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["metrics"]["anatomy"] == ANATOMY  # stdout stays one record
    assert "Core class main: 8 cores" in p.stderr


def test_sim_explain_without_anatomy_says_so(make_engine):
    make_engine(GOOD_ENGINE)
    p = run_cli("sim", "--explain", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip().endswith(anatomy.MISSING)
    assert "Traceback" not in p.stderr


def test_compare_explain_side_by_side(make_engine):
    make_engine(WITH_ANATOMY)
    p = run_cli("compare", "--quick", "--explain", "--jobs", "2")
    assert p.returncode == 0, p.stderr
    text = p.stdout.split("Where each packet's time goes, balanced traffic:")[1]
    balanced = text.split("imbalanced")[0]
    assert lines_of(balanced, "component")[0].split() == ["component", *compare.ARCHS]
    at = compare.ARCHS.index("shring") + 1
    row = lines_of(balanced, "dma_visible_wait")[0].split()
    assert row[at] == "20.0" and row.count("-") == len(compare.ARCHS) - 1
    assert lines_of(balanced, "service time")[0].split()[1 + at] == "1,220.0"  # "service time"
    assert "Where each packet's time goes, imbalanced traffic:" in p.stdout


# ---------------------------------------------------------------- the real engine


@needs_engine
def test_sim_explain_end_to_end_on_the_engine(monkeypatch):
    monkeypatch.delenv(engine.ENV_BIN, raising=False)
    p = run_cli("sim", "--json", "--explain", "--no-progress", "--set", "run.duration_ms=2",
                "--set", "run.warmup_ms=1")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)["metrics"]
    if "anatomy" not in m:
        pytest.skip("this rxb-sim does not report metrics.anatomy yet (the C side lands later)")
    assert anatomy.check_anatomy(m) == []
    assert "main" in m["anatomy"]
    text = p.stderr
    for cls in anatomy.classes(m["anatomy"]):
        doc = m["anatomy"][cls]
        assert anatomy.header(cls, doc) in text
        for c in doc["components"]:
            assert lines_of(text, c["name"] + " "), (cls, c["name"])
    assert len(lines_of(text, "total (service time)")) == len(m["anatomy"])
