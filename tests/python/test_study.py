"""`make run`'s job (python/rxbisect/study.py): the headline experiments, their report and a
reading per experiment, into one folder; a second run resumes."""

from conftest import needs_engine
from rxbisect import study

pytestmark = needs_engine


def test_the_study_writes_every_headline_experiment_and_the_report(tmp_path, capsys):
    assert study.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for eid in study.HEADLINE:
        assert (tmp_path / f"{eid}.jsonl").stat().st_size > 0
        assert (tmp_path / f"{eid}.png").exists()
        assert f"[{eid}, " in out
    assert (tmp_path / "report.html").exists()
    assert f"report: {tmp_path / 'report.html'}" in out
    # resumable: nothing left to run the second time
    results, _ = study.run(str(tmp_path))
    assert all(r["ran"] == 0 and r["skipped"] > 0 for r in results)
