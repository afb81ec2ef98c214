"""`rxb report DIR`: the page from real (tiny) simulations, rendered in headless Chromium,
and the generated reading on hand-made records whose answer is known."""

import json
import re
import shutil
import subprocess

import pytest

from rxbisect.commands.cli import main
from rxbisect.output import html_report, records
from rxbisect.output.plot import Point
from rxbisect.output.reading import reading
from rxbisect.study.sweeps import execute, plan

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


def dump_dom(page, width=1280):
    """The page's DOM after load, laid out in a window `width` CSS px wide."""
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--window-size={width},2000", "--virtual-time-budget=10000",
                        "--dump-dom", page.as_uri()],
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
    # no external resources: nothing is loaded from elsewhere (figures are inline SVG)...
    assert not re.search(r'\bsrc="', text) and "<link" not in text
    # ... and every link is an in-page anchor or one of the experiment's files in DIR
    hrefs = re.findall(r'\bhref="([^"]*)"', text)
    files = [h for h in hrefs if not h.startswith("#")]
    assert {"ring.jsonl", "ring.svg", "ring.throughput_gbps.svg", "nf.jsonl"} <= set(files)
    assert all((out / h).is_file() for h in files), files
    assert not list(out.glob("nf.*.svg"))  # a default plot's panels are not left behind
    # one figure per panel: ring's 2 y metrics, nf's default 2 (throughput, p99 latency)
    assert text.count('<figure class="panel"') == 4
    assert "Rx ring size (descriptors)" in (out / "ring.svg").read_text()
    for words in ("Rx ring size", "Larger rings, larger working set.", "throughput",
                  "As Rx ring size goes from 128 to 2048", "hardware profile",
                  "calibration machine", "seeds 1, 2",
                  "trimmed mean", "<th>varied</th>", "workload.nf", "a default plot"):
        assert words in text, words


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/deps.sh)")
def test_every_figure_loads_in_headless_chromium(results):
    out, exps = results
    page = html_report.render(out, exps)
    dom = dump_dom(page)
    body = re.search(r"<body[^>]*>", dom).group(0)  # the attributes the page's script set
    assert 'data-figures="ok 4"' in body
    assert "data-script-errors" not in body
    assert '<pre id="script-errors"></pre>' in dom


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/deps.sh)")
def test_the_chromium_check_sees_a_broken_figure(results, tmp_path):
    """The checks above can fail: a figure with nothing drawn in it is reported..."""
    out, exps = results
    bad = tmp_path / "bad"
    bad.mkdir()
    shutil.copy(out / "nf.jsonl", bad / "nf.jsonl")
    page = html_report.render(bad, exps)
    text = page.read_text()
    first = re.search(r'<figure class="panel" id="([^"]+)">.*?</figure>', text, re.S)
    broken = f'<figure class="panel" id="{first.group(1)}"><svg></svg></figure>'
    # ... and so can the script-error hook: a script that throws is recorded
    page.write_text(text.replace(first.group(0), broken)
                    .replace("</body>", "<script>null.x;</script></body>"))
    dom = dump_dom(page)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert f'data-figures="broken: {first.group(1)}"' in body
    assert 'data-script-errors="1"' in body


def legibility(page, width):
    """(narrowest figure / text width, smallest figure text in CSS px) at a window width,
    as the page's own script measured them in headless Chromium."""
    body = re.search(r"<body[^>]*>", dump_dom(page, width)).group(0)
    m = re.search(r'data-legibility="width ([\d.]+) text ([\d.]+)"', body)
    assert m, body
    return float(m.group(1)), float(m.group(2))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/deps.sh)")
def test_figures_are_legible_at_the_page_width(results):
    """At a 1280 px window every figure spans (nearly) the text's width and its smallest
    text (tick labels, legend) is at least 10 CSS px; in a 480 px window the same figures
    shrink below that, so the measurement can fail."""
    out, exps = results
    page = html_report.render(out, exps)
    width, text = legibility(page, 1280)
    assert width >= 0.95 and text >= 10, (width, text)
    assert legibility(page, 480)[1] < 10


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
    assert "The highest throughput changes hands along Rx ring size: privring at 256; " \
        "rxbisect at 1024, 4096; the widest gap is at Rx ring size 4096: 152 Gbps vs " \
        "120 Gbps (privring), 27 %." in text
    # the x span and the metric are said once for every series
    assert "As Rx ring size goes from 256 to 4096, throughput: privring falls from 180 to " \
        "120 Gbps; rxbisect stays within 3 % of 150 Gbps." in text
    assert "Crossings along Rx ring size: privring and rxbisect between 256 and 1024." in text


def test_reading_names_series_by_value_and_keys_once():
    """The figure's legend says arch.name=...; the reading names each series by its value
    (and a split key by its last part), so no key label is repeated in every sentence."""
    points = pts("throughput_gbps", [(f"arch.name={a}, workload.nf={nf}", x, v)
                                     for a, v in (("privring", 100), ("rxbisect", 150))
                                     for nf in ("nat", "lb") for x in (64, 128)])
    text = " ".join(reading(points, SPEC))
    assert "arch.name" not in text and "workload.nf" not in text
    assert "rxbisect, nf=nat, rxbisect, nf=lb share the highest throughput" in text


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
    crossings = text.split("Crossings along Load: ")[1]
    assert "a and b" not in crossings
    assert crossings.startswith("a and c 5 times;")


def test_reading_of_a_time_series_names_the_largest_step():
    # 10 samples at 200, then 150 from t = 6 on: the step is between 5 and 6 ms.
    rows = [("dyn_shring", float(t), 200.0 if t <= 5 else 150.0) for t in range(1, 11)]
    spec = {"kind": "line", "x": "time_ms", "y": ["throughput_gbps"], "xlabel": "Time (ms)",
            "ylabels": ["Throughput (Gbps)"], "xscale": "linear"}
    text = " ".join(reading(pts("throughput_gbps", rows), spec))
    assert "As Time goes from 1 to 10, throughput: dyn_shring falls from 200 to 150 Gbps, " \
        "the largest step (200 to 150 Gbps) between 5 and 6." in text


def test_reading_labels_with_numbers_in_brackets_and_a_zero_runner_up():
    # "Shared mode (1) / private (0)": the bracket is not a unit. 1 vs 0: no percentage.
    spec = dict(SPEC, y=["shared"], ylabels=["Shared mode (1) / private (0)"])
    text = " ".join(reading(pts("shared", [("a", 64, 1.0), ("b", 64, 0.0)]), spec))
    assert "a has the highest shared mode (1) / private (0) at every point; the widest gap " \
        "is at Rx ring size 64: 1.00 vs 0 (b), a difference of 1.00." in text


def test_reading_reports_the_confidence_interval():
    # trimmed mean 100, interval 95..107 -> (107 - 95) / 100 = 12 %; values carry it
    p = [Point("privring", False, 64, "throughput_gbps", 100.0, 95.0, 107.0, 5),
         Point("privring", False, 128, "throughput_gbps", 80.0, 80.0, 80.0, 5)]
    text = " ".join(reading(p, SPEC))
    assert "the confidence interval of throughput spans at most 12 % of its trimmed mean " \
        "(privring at Rx ring size 64, 5 seeds)" in text
    assert "privring falls from 100 [95.0, 107] to 80.0 Gbps" in text


def test_reading_says_at_least_for_a_lower_bound():
    spec = dict(SPEC, x="system.cores", kind="bar", y=["ndr_gbps"], xlabel="Cores",
                ylabels=["No-drop rate (Gbps)"])
    p = [Point("privring", False, 8, "ndr_gbps", 100.0, 100.0, 100.0, 1, at_least=True),
         Point("shring", False, 8, "ndr_gbps", 60.0, 60.0, 60.0, 1)]
    assert "≥ 100 Gbps vs 60.0 Gbps (shring)" in " ".join(reading(p, spec))


def test_fixed_and_varied_params():
    recs = [{"params": {"a": 1, "b": x, "run.seed": s}, "metrics": {}} for x in (1, 2)
            for s in (1, 2)]
    assert html_report._params(recs) == ({"a": 1}, {"b": [1, 2]})


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


@pytest.mark.parametrize("y, panels, warning", [
    # stopped the whole report (exit 2), after a warning saying the figure was in it
    (["throughput_gpbs"], [],  # a default plot writes no panel file
     "rxb: warning: mine: [plot] y: no record has a value for throughput_gpbs (did you mean "
     "'throughput_gbps'?); using a default plot"),
    # a ZeroDivisionError traceback while drawing the empty panel
    (["throughput_gbps", "mem_bw_gibps"], ["mine.throughput_gbps.svg"],
     "rxb: warning: mine: [plot] y: no record has a value for mem_bw_gibps; left out of the "
     "figures"),
])
def test_a_plot_metric_no_record_has_is_left_out_with_a_warning(tmp_path, capsys, y, panels,
                                                                warning):
    synthetic(tmp_path, "mine", throughput_recs([5.0, 6.0]))
    (tmp_path / "mine.summary.json").write_text(json.dumps(
        {"title": "mine", "plot": {"kind": "bar", "x": "arch.rx_size", "y": y}}))
    assert main(["report", str(tmp_path)]) == 0
    assert capsys.readouterr().err.splitlines() == [warning]
    page = (tmp_path / "report.html").read_text()
    assert "no record has a value for" in page  # the note on the page
    assert sorted(p.name for p in tmp_path.glob("mine.*.svg")) == panels


@pytest.mark.parametrize("setup, words", [
    (lambda d: None, "no ID.jsonl result files"),
    (lambda d: (d / "x.jsonl").write_text('{"metrics": {}}\nnot json\n{"metrics": {}}\n'),
     "x.jsonl line 2: not a result record"),
    (lambda d: (d / "x.jsonl").write_text('[1, 2]\n'), "not a result record"),
    # a metric edited to a string or NaN: a plot left the point out without a word
    (lambda d: (d / "x.jsonl").write_text('{"metrics": {"throughput_gbps": 1}}\n'
                                          '{"metrics": {"throughput_gbps": "fast"}}\n'),
     "x.jsonl line 2: metrics.throughput_gbps: expected a number, got 'fast'"),
    (lambda d: (d / "x.jsonl").write_text('{"metrics": {"latency_us_p99": NaN}}\n'),
     "x.jsonl line 1: metrics.latency_us_p99: expected a number, got nan"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, setup, words):
    setup(tmp_path)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rxb: error:") and words in err[0]


def test_an_empty_records_file_is_left_out_with_a_warning(tmp_path, capsys):
    """An ID.jsonl a run left without records stopped the report of every other experiment."""
    synthetic(tmp_path, "mine", throughput_recs([5.0]))
    (tmp_path / "bursts.jsonl").touch()
    assert main(["report", str(tmp_path)]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"rxb: warning: {tmp_path / 'bursts.jsonl'}: no records yet (a run that recorded no "
        "point); left out"]
    page = (tmp_path / "report.html").read_text()
    assert "mine" in page and "bursts" not in page


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
    text = html_report.render(folder, exps).read_text()
    assert "NFs from the summary" in text and "(quick variant)" in text
    assert "memory bandwidth" in text  # the reading is about the summary's y metric
    assert "Memory bandwidth (GiB/s)" in (folder / "nf.svg").read_text()


def test_a_users_experiment_named_like_the_catalogues_keeps_its_own_title_and_plot(results,
                                                                                   tmp_path):
    """The summary names the file that ran: the catalogue's nf.toml described other runs, and
    its title and plot were put on these records without a word. When the summary names the
    catalogue's own file, that file still wins (an edited [plot] redraws old records)."""
    out, _ = results
    folder, exps = tmp_path / "r", tmp_path / "e"
    folder.mkdir()
    exps.mkdir()
    shutil.copy(out / "nf.jsonl", folder / "nf.jsonl")
    catalogue = exps / "nf.toml"
    catalogue.write_text('title = "The catalogue\'s NFs"\ndescription = "x"\n')
    summary = {"title": "My own NFs", "description": "mine",
               "plot": {"kind": "bar", "x": "workload.nf", "y": ["mem_bw_gibps"]}}
    # the catalogue's entry run in another checkout (results travel) is the catalogue's too
    for source, catalogued, title in ((tmp_path / "mine" / "nf.toml", False, "My own NFs"),
                                      (catalogue, False, "The catalogue's NFs"),
                                      (tmp_path / "other" / "nf.toml", True,
                                       "The catalogue's NFs")):
        (folder / "nf.summary.json").write_text(json.dumps(
            {**summary, "source": str(source), "from_catalogue": catalogued}))
        assert html_report.load(folder, "nf", exps, print).title == title


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    """Pages and figures were written in place: a full disk left a 0-byte ID.png, which later
    reports took as drawn, and truncated the last good report.html."""
    path = tmp_path / "report.html"
    path.write_text("the last good page")
    with pytest.raises(OSError), records.replacing(path) as tmp:
        tmp.write_text("half a pa")
        raise OSError(28, "No space left on device")
    assert path.read_text() == "the last good page" and list(tmp_path.iterdir()) == [path]


def test_a_page_written_elsewhere_links_to_the_results_folder(results, tmp_path):
    """--out outside DIR: every file link was relative to DIR, so none resolved."""
    out, _ = results
    page = tmp_path / "pages" / "elsewhere.html"
    page.parent.mkdir()
    html_report.render(out, out=page)
    hrefs = re.findall(r'href="([^"#]+)"', page.read_text())
    assert hrefs and all((page.parent / h).resolve().is_file() for h in hrefs), hrefs


def test_an_empty_figure_is_drawn_again(results, tmp_path):
    out, _ = results
    folder = tmp_path / "r"
    folder.mkdir()
    shutil.copy(out / "nf.jsonl", folder / "nf.jsonl")
    (folder / "nf.png").write_bytes(b"")
    assert html_report.load(folder, "nf", tmp_path, print).figure is None


# ---- the page's story: order, captions, statistics, provenance, baseline --------------------

def synthetic(folder, eid, recs):
    (folder / f"{eid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def throughput_recs(values, provenance=None):
    """privring at one ring size, one record per value (seeds 1..n)."""
    return [{"params": {"arch.name": "privring", "arch.rx_size": 256, "run.seed": s},
             "metrics": {"throughput_gbps": v, "latency_us_p99": 5.0},
             **({"provenance": provenance} if provenance else {})}
            for s, v in enumerate(values, 1)]


PROV = {"commit": "0123456789abcdef", "dirty": True, "engine_build": "rxb-sim 1.2 (gcc)",
        "profile_hash": "p", "costs_hash": "c", "command": "rxb repro ring-size --quick",
        "host": "lab-host-7", "date": "2026-11-26T20:00:00Z"}


@pytest.fixture
def story(tmp_path):
    """Synthetic results (no engine): catalogue IDs out of order and one outside it, a
    point with three differing seeds, an NDR at line rate, records with and without
    provenance."""
    synthetic(tmp_path, "zz-own", throughput_recs([1.0]))
    synthetic(tmp_path, "bursts", throughput_recs([100.0, 110.0, 150.0], PROV))
    synthetic(tmp_path, "ring-size", throughput_recs([5.0]))
    synthetic(tmp_path, "ndr", [
        {"params": {"arch.name": a, "system.cores": 8, "run.seed": 1},
         "search": {"lo": 1.0, "hi": 100.0, "rate": rate},
         "metrics": {"ndr_gbps": rate, "ndr_found": True}}
        for a, rate in (("privring", 100.0), ("shring", 61.0))])
    return tmp_path


def test_experiments_follow_the_narrative_with_numbered_captions(story, tmp_path):
    text = html_report.render(story, tmp_path / "no-experiments").read_text()
    sections = re.findall(r'<section id="([^"]+)"><h2>(\d+)\.', text)
    assert sections == [("ring-size", "1"), ("bursts", "2"), ("ndr", "3"), ("zz-own", "4")]
    numbers = [int(n) for n in re.findall(r"<figcaption>Figure (\d+): ", text)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 4
    assert text.index("Figure 1: ") < text.index('<section id="bursts">')


def test_catalogue_ids_appear_in_the_narrative_order():
    from rxbisect.study import experiments
    assert sorted(experiments.NARRATIVE) == experiments.ids()
    assert html_report.order(["proc-var", "x", "ring-size", "bursts"]) == \
        ["ring-size", "bursts", "proc-var", "x"]


def test_tables_show_the_trimmed_mean_with_its_interval(story, tmp_path):
    from rxbisect.output import stats
    from rxbisect.output.reading import fmt
    text = html_report.render(story, tmp_path / "no-experiments").read_text()
    e = stats.estimate([100.0, 110.0, 150.0])
    assert e.mean == 110.0 and e.lo < e.mean < e.hi  # three differing seeds: an interval
    assert f"<td>{fmt(e.mean)} [{fmt(e.lo)}, {fmt(e.hi)}]</td>" in text
    assert "95 % bootstrap confidence interval" in text


def test_an_ndr_at_line_rate_reads_at_least(story, tmp_path):
    exps = tmp_path / "exps"
    exps.mkdir()
    (exps / "ndr.toml").write_text('[plot]\nkind = "bar"\nx = "system.cores"\n'
                                   'y = ["ndr_gbps"]\nylabels = ["No-drop rate (Gbps)"]\n')
    text = html_report.render(story, exps).read_text()
    ndr = text[text.index('<section id="ndr">'):text.index('<section id="zz-own">')]
    assert "<td>≥ 100</td>" in ndr and "<td>61.0</td>" in ndr
    assert "≥ 100 Gbps vs 61.0 Gbps" in ndr  # the reading says it too


def test_provenance_block_and_commands(story, tmp_path):
    text = html_report.render(story, tmp_path / "no-experiments").read_text()
    block = text[text.index('<section id="provenance"'):text.index('<ol class="toc">')]
    for words in ("0123456789abcdef (dirty)", "rxb-sim 1.2 (gcc)", "lab-host-7",
                  "2026-11-26T20:00:00Z", "<td>3</td>",
                  "4 of 7 records carry no provenance"):
        assert words in block, words
    bursts = text[text.index('<section id="bursts">'):text.index('<section id="ndr">')]
    assert "Command: <code>rxb repro ring-size --quick</code>" in bursts


def test_baseline_fragment_comes_before_the_experiments(story, tmp_path):
    frag = '<table class="num"><tr><td>differs</td></tr></table>'
    text = html_report.render(story, tmp_path / "e", baseline_html=frag).read_text()
    assert "<h2>Compared with a baseline</h2>" in text and frag in text
    assert text.index(frag) < text.index('<ol class="toc">') < text.index("<section id=\"ring")
    assert "Compared with a baseline" not in html_report.render(story, tmp_path / "e") \
        .read_text()


def test_a_re_run_point_counts_once_by_its_later_record(tmp_path):
    """A point re-run (stale provenance) appends a second record with the same point id:
    the report and records.read must not count the stale one as another seed."""
    from rxbisect.output import records
    old = {"point_id": "p1", "params": {"arch.name": "privring"}, "metrics": {"x": 1.0}}
    new = {"point_id": "p1", "params": {"arch.name": "privring"}, "metrics": {"x": 2.0}}
    other = {"point_id": "p2", "params": {"arch.name": "rxbisect"}, "metrics": {"x": 3.0}}
    path = tmp_path / "e.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (old, other, new)))
    assert records.read_file(path, strict=True) == [new, other]
    assert records.read(tmp_path, "e") == [new, other]
