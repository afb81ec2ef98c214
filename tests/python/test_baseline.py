"""`rxb compare-runs DIR DIR2` and `rxb report DIR --baseline DIR2` (baseline.py): two results
folders side by side, built here record by record so every estimate is known."""

import json

import pytest

from rxbisect.commands.cli import main
from rxbisect.output import baseline

PLOT = {"kind": "line", "x": "arch.rx_size", "y": ["throughput_gbps"]}


def write(folder, eid, points, provenance=None, profile=None, duration_ms=40.0, pcap=""):
    """DIR/ID.jsonl with one record per (rx_size, seed, throughput) and its summary."""
    folder.mkdir(exist_ok=True)
    lines = []
    for size, seed, gbps in points:
        rec = {"experiment": eid, "arch": "privring", "seed": seed,
               "params": {"arch.name": "privring", "run.seed": seed, "arch.rx_size": size},
               "metrics": {"throughput_gbps": gbps},
               "config": {"run": {"duration_ms": duration_ms, "seed": seed},
                          "traffic": {"pcap": pcap}}}
        if provenance:
            rec["provenance"] = provenance
        if profile:
            rec["profile"] = {"name": profile}
        lines.append(json.dumps(rec))
    (folder / f"{eid}.jsonl").write_text("\n".join(lines) + "\n")
    (folder / f"{eid}.summary.json").write_text(json.dumps({"title": eid, "plot": PLOT}))
    return folder


def seeds(size, values):
    return [(size, s, v) for s, v in enumerate(values, 1)]


def table_rows(out):
    return [line for line in out.splitlines() if line.startswith("exp ")]


@pytest.fixture
def folders(tmp_path):
    """exp: 64 the same on both sides, 256 ten percent lower in DIR, 1024 only in DIR;
    old-only only in the baseline."""
    new = write(tmp_path / "new", "exp", seeds(64, [10, 11, 12]) + seeds(256, [18, 18.5, 19])
                + seeds(1024, [30]), {"commit": "1111111", "dirty": True, "engine_build": "b2"})
    old = write(tmp_path / "old", "exp", seeds(64, [10, 11, 12]) + seeds(256, [20, 20.5, 21]))
    write(old, "old-only", seeds(64, [1]))
    return new, old


def test_sides_run_with_other_settings_are_named(tmp_path, capsys):
    """A quick run against a full one of the same commit: the differences were flagged as
    regressions without a word that the runs were 40 ms of one seed against 150 ms of ten."""
    quick = write(tmp_path / "quick", "exp", seeds(64, [10]) + seeds(256, [20]))
    full = write(tmp_path / "full", "exp", seeds(64, [10, 11, 12]) + seeds(256, [20, 21, 22]),
                 duration_ms=150.0)
    c = baseline.compare(quick, full, experiments=tmp_path)
    assert c.settings == ["warning: exp: the sides ran other settings (DIR vs baseline: "
                          "run.seed: 1 vs 1, 2, 3; run.duration_ms: 40.0 vs 150.0): their "
                          "differences include the settings'"]
    main(["compare-runs", str(quick), str(full), "--experiments", str(tmp_path)])
    assert c.settings[0] in capsys.readouterr().out
    # the same settings, a grid widened on one side: nothing to say
    wider = write(tmp_path / "wider", "exp", seeds(64, [10]) + seeds(256, [20]) + seeds(512, [30]))
    assert baseline.compare(quick, wider, experiments=tmp_path).settings == []
    # a trace generated in each folder is named by its own path: the trace experiment warned
    # on every compare
    a = write(tmp_path / "a", "exp", seeds(64, [10]), pcap=str(tmp_path / "a" / "t.pcap"))
    b = write(tmp_path / "b", "exp", seeds(64, [10]), pcap=str(tmp_path / "b" / "t.pcap"))
    assert baseline.compare(a, b, experiments=tmp_path).settings == []


def test_estimates_flags_and_one_sided(folders, tmp_path):
    c = baseline.compare(*folders, experiments=tmp_path)
    rows = {r.x: r for r in c.rows}
    assert rows[64].new == rows[64].base and not rows[64].flagged
    assert rows[256].new.mean == 18.5 and rows[256].base.mean == 20.5 and rows[256].flagged
    assert rows[256].relative == pytest.approx(-2 / 20.5)
    assert rows[1024].base is None and not rows[1024].flagged and rows[1024] in c.one_sided
    assert c.only_in(baseline.BASE) == ["old-only"] and c.only_in(baseline.NEW) == []
    assert c.new.provenance == ["commit 1111111 (dirty), engine build b2"]
    assert c.base.provenance == []


def test_overlapping_seed_spread_is_not_flagged(tmp_path):
    new = write(tmp_path / "new", "exp", seeds(64, [10, 12, 14, 11]))
    old = write(tmp_path / "old", "exp", seeds(64, [11, 13, 12.5, 10]))
    c = baseline.compare(new, old, experiments=tmp_path)
    assert c.rows[0].new.mean != c.rows[0].base.mean and not c.flagged


def test_sides_on_other_hardware_profiles_are_said_so(tmp_path, capsys):
    """A baseline run on another machine read as a regression without a word."""
    new = write(tmp_path / "new", "exp", seeds(64, [10, 11, 12]), profile="reference")
    old = write(tmp_path / "old", "exp", seeds(64, [40, 41, 42]), profile="large")
    assert main(["compare-runs", str(new), str(old), "--experiments", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("(profile reference)") and out[1].endswith("(profile large)")
    assert out[2] == ("warning: the sides ran on other hardware profiles (DIR: reference; "
                      "baseline: large): their differences include the machines'")
    same = write(tmp_path / "same", "exp", seeds(64, [40, 41, 42]), profile="reference")
    main(["compare-runs", str(new), str(same), "--experiments", str(tmp_path)])
    assert "warning" not in capsys.readouterr().out


def test_compare_runs_cli(folders, tmp_path, capsys):
    new, old = folders
    assert main(["compare-runs", str(new), str(old), "--experiments", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "commit 1111111 (dirty), engine build b2" in out
    assert "experiment old-only only in baseline" in out
    assert "-9.8 %" in out and "differs" in out and "only in DIR" in out
    assert len(table_rows(out)) == 2  # the unchanged point is shown with --all only
    assert "2 points on both sides, 1 differ" in out
    assert main(["compare-runs", str(new), str(old), "--experiments", str(tmp_path),
                 "--all"]) == 1
    assert len(table_rows(capsys.readouterr().out)) == 3
    assert main(["compare-runs", str(old), str(old), "--experiments", str(tmp_path)]) == 0


def test_an_empty_records_file_is_left_out_with_a_warning(folders, tmp_path, capsys):
    """An ID.jsonl a run left without records made compare-runs refuse the whole folder."""
    new, old = folders
    (new / "bursts.jsonl").touch()
    assert main(["compare-runs", str(new), str(old), "--experiments", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"rxb: warning: {new / 'bursts.jsonl'}: no records yet (a run "
                                "that recorded no point); left out"]
    assert "2 points on both sides, 1 differ" in out and "bursts" not in out


@pytest.mark.parametrize("args, words", [
    (["compare-runs", "{tmp}/nope", "{tmp}/old"], "DIR {tmp}/nope: not a folder"),
    (["compare-runs", "{tmp}/new", "{tmp}/empty"], "baseline {tmp}/empty: no ID.jsonl"),
    (["compare-runs", "{tmp}/new", "{tmp}/old", "--experiments", "/nonexistent"],
     "--experiments /nonexistent: not a folder"),
    (["report", "{tmp}/new", "--experiments", "/nonexistent"],
     "--experiments /nonexistent: not a folder"),
    (["report", "{tmp}/new", "--baseline", "{tmp}/nope"], "baseline {tmp}/nope: not a folder"),
    # a gate that compared nothing passed (exit 0)
    (["compare-runs", "{tmp}/new", "{tmp}/other"],
     "no experiment is in both {tmp}/new (exp) and {tmp}/other (another)"),
    # a damaged baseline file was skipped when DIR had no such experiment
    (["compare-runs", "{tmp}/new", "{tmp}/damaged"],
     "{tmp}/damaged/old-only.jsonl line 1: not a result record"),
])
def test_bad_input_is_one_error_line(folders, tmp_path, capsys, args, words):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "other", "another", seeds(64, [1]))
    write(tmp_path / "damaged", "exp", seeds(64, [10]))
    (tmp_path / "damaged" / "old-only.jsonl").write_text("not a record\n{}\n")
    assert main([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0] == "rxb: error: " + err[0].removeprefix("rxb: error: ")
    assert words.format(tmp=tmp_path) in err[0]


def test_report_with_baseline_section(folders, tmp_path):
    new, old = folders
    page = tmp_path / "r.html"
    assert main(["report", str(new), "--baseline", str(old), "--experiments", str(tmp_path),
                 "--out", str(page)]) == 0
    text = page.read_text()
    # one section, one title (the comparison brought a second one, nested, with the same id)
    assert text.count('id="baseline"') == 1 and text.count("<h2>Compared with a baseline</h2>") == 1
    assert "commit 1111111 (dirty)" in text
    assert "experiment old-only only in baseline" in text and "differs" in text
