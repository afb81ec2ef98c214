"""The notebook API (rxbisect/__init__.py): the same code as the `rxb` commands, returning
DataFrames and plain data."""

import re

import pandas as pd
import pytest

import rxbisect
from conftest import needs_engine


@needs_engine
def test_repro_is_callable_and_returns_one_row_per_point():
    df = rxbisect.repro("ring-size", quick=True, out=None, jobs=1, progress=False)
    assert isinstance(df, pd.DataFrame)
    assert sorted(df["params.arch.rx_size"]) == [64, 256, 1024, 4096]
    assert (df["experiment"] == "ring-size").all()


def test_calculators_are_plain_functions():
    assert rxbisect.size().ax > 0
    assert 0 <= rxbisect.dark(100, 64).drop_fraction <= 1


@pytest.mark.parametrize("kw, message", [
    # out="" (an unset variable) wrote sweep.jsonl and sweep.parquet into the current folder
    ({"grid": {"arch.ax_size": [64]}, "out": ""}, "--out '': empty; allowed: a folder"),
    ({"grid": {"arch.ax_size": [64]}, "out": " "}, "--out ' ': empty"),
    # an AttributeError: 'tuple' object has no attribute 'encode'
    ({"grid": [("arch.ax_size", [64])]}, "grid: expected a mapping {key: [values]}, got list"),
])
def test_sweep_refuses_an_empty_out_and_a_grid_that_is_no_mapping(tmp_path, monkeypatch, kw,
                                                                  message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(rxbisect.errors.UsageError, match=re.escape(message)):
        rxbisect.sweep(sets=["run.duration_ms=1", "run.warmup_ms=0.2"], jobs=1, progress=False,
                       **kw)
    assert list(tmp_path.iterdir()) == []


def test_repro_refuses_an_empty_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(rxbisect.errors.UsageError, match="--out '': empty"):
        rxbisect.repro("ring-size", quick=True, out="", jobs=1, progress=False)
    assert list(tmp_path.iterdir()) == []
