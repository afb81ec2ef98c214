"""The notebook API (rxbisect/__init__.py): the same code as the `rxb` commands, returning
DataFrames and plain data."""

import pandas as pd

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
