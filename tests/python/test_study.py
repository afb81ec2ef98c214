"""`make run`'s job (rxbisect/study/headline.py): the headline experiments, their report and a
reading per experiment, into one folder; a second run resumes."""

import json

from conftest import needs_engine
from rxbisect.study import headline

pytestmark = needs_engine


def test_the_study_writes_every_headline_experiment_and_the_report(tmp_path, capsys):
    assert headline.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for eid in headline.HEADLINE:
        assert (tmp_path / f"{eid}.jsonl").stat().st_size > 0
        assert (tmp_path / f"{eid}.png").exists()
        assert f"[{eid}, " in out
    assert (tmp_path / "report.html").exists()
    assert f"report: {tmp_path / 'report.html'}" in out
    # resumable: nothing left to run the second time
    results, _ = headline.run(str(tmp_path))
    assert all(r["ran"] == 0 and r["skipped"] > 0 for r in results)


def test_the_headline_follows_the_narrative_and_includes_bursts():
    from rxbisect.study import experiments
    assert "bursts" in headline.HEADLINE
    rank = [experiments.NARRATIVE.index(eid) for eid in headline.HEADLINE]
    assert rank == sorted(rank) and headline.HEADLINE[0] == "ring-size"  # the problem first


def test_bursts_make_small_privring_drop_and_not_the_1ki_rings(tmp_path):
    """The story the burst experiment is in the study for: bursts of 1024 packets to one
    core overflow small privRing's 128 descriptors, not privRing's 1 Ki ring nor rxBisect's
    Bx of 1 Ki (quick variant, the simulator)."""
    from rxbisect.output import plot
    from rxbisect.study import experiments, reproduce
    reproduce.run_each(reproduce.prepare("bursts", quick=True, out=str(tmp_path), jobs=2),
                   str(tmp_path), None, 2, False)
    recs = [json.loads(x) for x in (tmp_path / "bursts.jsonl").read_text().splitlines()]
    drops = {(p.series, p.x): p.mean for p in plot.aggregate(recs, experiments.load(
        "bursts").plot) if p.metric == "drop_rate"}
    assert drops[("arch.name=small_privring", 1024)] > 0.05
    for design in ("privring", "rxbisect"):
        assert drops[(f"arch.name={design}", 1024)] < 0.001, design
