"""`rxb report DIR`: the page from real (tiny) simulations, rendered in headless Chromium,
and the generated reading on hand-made records whose answer is known."""

import json
import re
import shutil
import subprocess

import pytest

from rxbisect import report_html
from rxbisect.reading import reading
from rxbisect.sweep import execute, plan
from rxbisect.cli import main
from rxbisect.plot import Point

QUICK = ("run.duration_ms=1", "run.warmup_ms=0.5")
CHROMIUM = shutil.which("chromium")


def simulate(folder, eid, grid, seeds=2):
    """Run a few tiny real points and write them as DIR/ID.jsonl."""
    points = plan(None, grid, seeds, QUICK, experiment=eid)
    recs = execute(points, None, jobs=2, progress=False).records
    (folder / f"{eid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return recs


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """DIR with two experiments: `ring` has an experiment file with a [plot] table and no
    figure yet; `nf` has neither (a default plot)."""
    root = tmp_path_factory.mktemp("report")
    out, exps = root / "results", root / "experiments"
    out.mkdir()
    exps.mkdir()
    simulate(out, "ring", {"arch.name": ["privring", "small_privring"],
                           "arch.rx_size": [128, 512, 2048]})
    simulate(out, "nf", {"workload.nf": ["nat", "lb"], "arch.name": ["privring", "rxbisect"]})
    (exps / "ring.toml").write_text(
        'title = "Rx ring size"\ndescription = "Larger rings, larger working set."\n'
        '[plot]\nkind = "line"\nx = "arch.rx_size"\ny = ["throughput_gbps", '
        '"latency_us_p99"]\nxlabel = "Rx ring size (descriptors)"\n'
        'ylabels = ["Throughput (Gbps)", "p99 latency (µs)"]\nxscale = "log2"\n')
    return out, exps


def dump_dom(page):
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_report_page_is_complete_and_self_contained(results, capsys):
    out, exps = results
    assert main(["report", str(out), "--experiments", str(exps)]) == 0
    page = out / "report.html"
    assert f"report: {page}" in capsys.readouterr().out
    text = page.read_text()
    # the missing figure of `ring` was drawn from its [plot] table, next to its records
    assert (out / "ring.svg").is_file() and (out / "ring.png").is_file()
    assert not (out / "nf.svg").exists()  # a default plot is not left behind
    # no external resources: every src/href is a data: URI or an in-page anchor
    refs = re.findall(r'(?:src|href)="([^"]*)"', text)
    assert refs and all(r.startswith(("data:", "#")) for r in refs)
    assert text.count('<img class="figure"') == 2
    assert "Rx ring size (descriptors)" in (out / "ring.svg").read_text()
    for words in ("Rx ring size", "Larger rings, larger working set.", "throughput",
                  "as Rx ring size goes from 128 to 2048", "hardware profile",
                  "calibration machine", "seeds 1, 2",
                  "trimmed mean", "<th>varied</th>", "workload.nf", "a default plot"):
        assert words in text, words


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/deps.sh)")
def test_every_figure_loads_in_headless_chromium(results):
    out, exps = results
    page = report_html.render(out, exps)
    dom = dump_dom(page)
    body = re.search(r"<body[^>]*>", dom).group(0)  # the attributes the page's script set
    assert 'data-figures="ok 2"' in body
    assert "data-script-errors" not in body
    assert '<pre id="script-errors"></pre>' in dom


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/deps.sh)")
def test_the_chromium_check_sees_a_broken_figure(results, tmp_path):
    """The checks above can fail: a figure file that is not an image is reported..."""
    out, exps = results
    bad = tmp_path / "bad"
    bad.mkdir()
    shutil.copy(out / "nf.jsonl", bad / "nf.jsonl")
    (bad / "nf.svg").write_text("<svg this is not")
    page = report_html.render(bad, exps)
    # ... and so can the script-error hook: a script that throws is recorded
    page.write_text(page.read_text().replace("</body>", "<script>null.x;</script></body>"))
    dom = dump_dom(page)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-figures="broken: nf"' in body and 'data-script-errors="1"' in body


def pts(metric, rows):
    """Points of one metric from (series, x, mean) rows; one seed each."""
    return [Point(s, False, x, metric, m, m, m, 1) for s, x, m in rows]


SPEC = {"kind": "line", "x": "arch.rx_size", "y": ["throughput_gbps"],
        "xlabel": "Rx ring size (descriptors)", "ylabels": ["Throughput (Gbps)"]}


def test_reading_names_the_winner_trend_and_crossing():
    # privRing falls from 180 to 120; rxBisect stays at 150..152 (within 3 % of 150).
    # At 256 privRing leads (180 vs 150); at 1024 and 4096 rxBisect does (151 vs 140,
    # 152 vs 120: +26.7 %, the widest gap): the lead changes hands and the lines cross
    # between 256 and 1024.
    points = pts("throughput_gbps", [("privring", 256, 180), ("privring", 1024, 140),
                                     ("privring", 4096, 120), ("rxbisect", 256, 150),
                                     ("rxbisect", 1024, 151), ("rxbisect", 4096, 152)])
    text = " ".join(reading(points, SPEC))
    assert "The highest throughput changes hands: privring at Rx ring size 256; rxbisect " \
        "at Rx ring size 1024, 4096; the widest gap is at Rx ring size 4096: 152 Gbps vs " \
        "120 Gbps (privring), 27 %." in text
    assert "privring's throughput falls from 180 to 120 Gbps as Rx ring size goes from 256 " \
        "to 4096" in text
    assert "rxbisect's throughput stays within 3 % of 150 Gbps" in text
    assert "privring and rxbisect cross between Rx ring size 256 and 1024" in text


def test_reading_lower_is_better_and_ties():
    spec = dict(SPEC, y=["latency_us_p99", "throughput_gbps"],
                ylabels=["p99 latency (µs)", "Throughput (Gbps)"])
    # latency: shring 2.0 and 3.0 vs privring 4.0 and 4.5 -> shring lowest everywhere;
    # margins |2-4|/4 = 50 % (the widest, at 64) and |3-4.5|/4.5 = 33 %.
    # throughput: 100 vs 100.5 -> within 1 %: no winner is named.
    points = pts("latency_us_p99", [("privring", 64, 4.0), ("privring", 128, 4.5),
                                    ("shring", 64, 2.0), ("shring", 128, 3.0)])
    points += pts("throughput_gbps", [("privring", 64, 100.0), ("shring", 64, 100.5)])
    text = " ".join(reading(points, spec))
    assert "shring has the lowest p99 latency at every point; the widest gap is at Rx ring " \
        "size 64: 2.00 µs vs 4.00 µs (privring), 50 %." in text
    assert "All series are within 1 % of each other in throughput at every point." in text


def test_reading_names_tied_leaders_over_a_laggard():
    # Three designs at line rate (200, 200, 199.5: within 1 % of each other) and privRing at
    # 160: the three lead together, by 25 % over privRing — not "all within 1 %".
    spec = dict(SPEC, x="workload.nf", xlabel="Network function")
    rows = [("privring", "lb", 160.0), ("shring", "lb", 200.0), ("rxbisect", "lb", 199.5),
            ("small_privring", "lb", 200.0)]
    text = " ".join(reading(pts("throughput_gbps", rows), spec))
    assert "All series are within" not in text
    assert "shring, rxbisect, small_privring share the highest throughput (within 1 % of each " \
        "other) at every point; the widest gap is at Network function lb: 200 Gbps vs " \
        "160 Gbps (privring), 25 %." in text


def test_reading_ignores_noise_and_counts_many_crossings():
    # a and b alternate by 0.5 % (noise: no lead, no crossing) at x = 1..4, then b leads
    # by 10 % at 5 and 6. c zigzags around a by 5 % at every x: 5 crossings, counted.
    rows = [("a", x, 100.0) for x in range(1, 7)]
    rows += [("b", x, 100.5 if x % 2 else 99.5) for x in range(1, 5)]
    rows += [("b", 5, 110.0), ("b", 6, 110.0)]
    rows += [("c", x, 105.0 if x % 2 else 95.0) for x in range(1, 7)]
    spec = dict(SPEC, xlabel="Load (x)")
    text = " ".join(reading(pts("throughput_gbps", rows), spec))
    assert "a and b cross" not in text
    assert "a and c cross 5 times" in text


def test_reading_of_a_time_series_names_the_largest_step():
    # 10 samples at 200, then 150 from t = 6 on: the step is between 5 and 6 ms.
    rows = [("dyn_shring", float(t), 200.0 if t <= 5 else 150.0) for t in range(1, 11)]
    spec = {"kind": "line", "x": "time_ms", "y": ["throughput_gbps"], "xlabel": "Time (ms)",
            "ylabels": ["Throughput (Gbps)"], "xscale": "linear"}
    text = " ".join(reading(pts("throughput_gbps", rows), spec))
    assert "dyn_shring's throughput falls from 200 to 150 Gbps as Time goes from 1 to 10, " \
        "the largest step (200 to 150 Gbps) between Time 5 and 6" in text


def test_reading_labels_with_numbers_in_brackets_and_a_zero_runner_up():
    # "Shared mode (1) / private (0)": the bracket is not a unit. 1 vs 0: no percentage.
    spec = dict(SPEC, y=["shared"], ylabels=["Shared mode (1) / private (0)"])
    text = " ".join(reading(pts("shared", [("a", 64, 1.0), ("b", 64, 0.0)]), spec))
    assert "a has the highest shared mode (1) / private (0) at every point; the widest gap " \
        "is at Rx ring size 64: 1.00 vs 0 (b), a difference of 1.00." in text


def test_reading_reports_seed_spread():
    # trimmed mean 100, min 95, max 107 -> (107 - 95) / 100 = 12 %
    p = [Point("privring", False, 64, "throughput_gbps", 100.0, 95.0, 107.0, 5)]
    text = " ".join(reading(p, SPEC))
    assert "spreads by at most 12 % of its trimmed mean (privring at Rx ring size 64, " \
        "5 seeds)" in text


def test_fixed_and_varied_params():
    recs = [{"params": {"a": 1, "b": x, "run.seed": s}, "metrics": {}} for x in (1, 2)
            for s in (1, 2)]
    assert report_html._params(recs) == ({"a": 1}, {"b": [1, 2]})


def test_invalid_plot_table_falls_back_with_a_warning(results, tmp_path, capsys):
    out, _ = results
    folder, exps = tmp_path / "r", tmp_path / "e"
    folder.mkdir()
    exps.mkdir()
    shutil.copy(out / "nf.jsonl", folder / "nf.jsonl")
    (exps / "nf.toml").write_text('[plot]\nkind = "pie"\nx = "workload.nf"\ny = "x"\n')
    assert main(["report", str(folder), "--experiments", str(exps)]) == 0
    err = capsys.readouterr().err
    assert "rxb: warning:" in err and "[plot] kind = 'pie'" in err
    assert "is invalid" in (folder / "report.html").read_text()


@pytest.mark.parametrize("setup, words", [
    (lambda d: None, "no ID.jsonl result files"),
    (lambda d: (d / "x.jsonl").write_text('{"metrics": {}}\nnot json\n{"metrics": {}}\n'),
     "x.jsonl line 2: not a JSON record"),
    (lambda d: (d / "x.jsonl").write_text('[1, 2]\n'), "not a result record"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, setup, words):
    setup(tmp_path)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rxb: error:") and words in err[0]


def test_missing_folder_is_one_error_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_title_and_plot_from_the_repro_summary(results, tmp_path):
    """Without experiments/ID.toml, DIR/ID.summary.json (written by rxb repro) is used."""
    out, _ = results
    folder, exps = tmp_path / "r", tmp_path / "e"
    folder.mkdir()
    exps.mkdir()
    shutil.copy(out / "nf.jsonl", folder / "nf.jsonl")
    (folder / "nf.summary.json").write_text(json.dumps({
        "title": "NFs from the summary", "variant": "quick",
        "plot": {"kind": "bar", "x": "workload.nf", "y": ["mem_bw_gibps"],
                 "xlabel": "Network function", "ylabels": ["Memory bandwidth (GiB/s)"]}}))
    text = report_html.render(folder, exps).read_text()
    assert "NFs from the summary" in text and "(quick variant)" in text
    assert "memory bandwidth" in text  # the reading is about the summary's y metric
    assert "Memory bandwidth (GiB/s)" in (folder / "nf.svg").read_text()
