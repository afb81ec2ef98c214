"""`rxb trace gen`: the options checked before the generator runs (tracegen.py, cli_tools.py),
each with a one-line error naming the option, what is wrong and what is allowed."""

import pytest

from rxbisect.checkout import repo_root
from rxbisect.commands.cli import main
from rxbisect.tools import tracegen

ALLOWED = "allowed: LEN:WEIGHT,... with LEN a frame length from 64 to 9018 bytes and WEIGHT " \
          "a positive number"


@pytest.mark.parametrize("sizes, why", [
    ("64:abc", "weight 'abc' is not a number"),
    ("64:1,1518:x1", "weight 'x1' is not a number"),
    ("64:nan", "weight 'nan' is not a number"),
    ("64:0", "weight 0 is not a positive, finite number"),
    ("64:-1", "weight -1 is not a positive, finite number"),
    ("64:1e999", "weight 1e999 is not a positive, finite number"),
    ("10:1", "length 10 is out of range"),
    ("64x:1", "length '64x' is not a whole number of bytes"),
    ("64", "item '64' is not LEN:WEIGHT"),
    ("64:1,", "item '' is not LEN:WEIGHT"),
])
def test_bad_sizes_name_the_item(tmp_path, capsys, sizes, why):
    assert main(["trace", "gen", str(tmp_path / "g.pcap"), "--sizes", sizes]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rxb: error: --sizes {sizes}: {why}; {ALLOWED}"]
    assert not (tmp_path / "g.pcap").exists()


def test_good_sizes_pass():
    tracegen.check_sizes("64:0.45,594:.1,1518:4.5e-1")


def test_min_pkts_above_max_pkts(tmp_path, capsys):
    assert main(["trace", "gen", str(tmp_path / "g.pcap"), "--min-pkts", "20",
                 "--max-pkts", "10"]) == 2
    assert "rxb: error: --min-pkts 20: above --max-pkts 10; allowed: at most --max-pkts" \
        in capsys.readouterr().err


@pytest.mark.parametrize("flag, value, noun", [
    ("--seed", "abc", "an integer"), ("--max-pkts", "1.5", "an integer"),
    ("--flows", "many", "an integer"), ("--rate-gbps", "fast", "a number"),
])
def test_numbers_say_what_they_must_be(tmp_path, capsys, flag, value, noun):
    with pytest.raises(SystemExit) as e:  # argparse's own error exit
        main(["trace", "gen", str(tmp_path / "g.pcap"), flag, value])
    assert e.value.code == 2
    assert f"rxb: error: argument {flag}: {value!r} is not {noun}" in capsys.readouterr().err


@pytest.mark.skipif(not (repo_root() / "build/sim/rxb-tracegen").is_file(),
                    reason="rxb-tracegen not built")
def test_value_reaches_the_generator_as_given(tmp_path, capsys):
    assert main(["trace", "gen", str(tmp_path / "g.pcap"), "--duration-ms", "1e-9"]) == 2
    assert "rxb: error: --duration-ms 1e-09: out of range" in capsys.readouterr().err
