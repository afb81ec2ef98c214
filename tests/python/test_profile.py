"""Hardware profiles: the reference testbed numbers and the large server."""


import pytest

from conftest import load_script
from rxbisect.vocab import profile


def test_reference_profile_is_the_testbed_of_evaluation_2_4():
    p = profile.load("reference")
    assert p.cpu.cores_per_socket == 16 and p.cpu.freq_ghz == 2.1
    assert (p.llc.size_mib, p.llc.ways, p.llc.ddio_ways) == (22.0, 11, 2)
    assert (p.nic.count, p.nic.link_gbps) == (2, 100.0)
    assert p.dram.kind == "DDR4-2933" and p.dram.channels == 4
    assert (p.dram.dimm_mts, p.dram.cpu_max_mts) == (2933, 2400)  # runs at the CPU's 2400
    assert p.ddio_bytes() == 4 * 2**20  # 2/11 of 22 MiB


def test_large_profile_is_a_56_core_server_with_big_llc_and_400g():
    p = profile.load("large")
    assert p.cpu.cores_per_socket == 56
    assert p.llc.size_mib >= 100
    assert p.nic.link_gbps == 400.0


def test_dram_peak_bandwidth():
    # 4 channels × 2400 MT/s × 8 B = 76.8 GB/s
    assert profile.load("reference").dram_peak_gibps == pytest.approx(76.8e9 / 2**30)


@pytest.mark.parametrize("name", ["reference", "large"])
def test_every_profile_value_names_its_source(name):
    """Each key line inside a section of a shipped profile carries a source comment."""
    section = None
    for line in profile.locate(name).read_text().splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s
        elif section and "=" in s and not s.startswith("#"):
            assert "#" in s.split("=", 1)[1], f"{name} {section}: no source for {s!r}"


def test_a_user_profile_file_works(tmp_path):
    text = profile.locate("reference").read_text().replace("size_mib = 22.0", "size_mib = 44.0")
    f = tmp_path / "mine.toml"
    f.write_text(text)
    p = profile.load(str(f))
    assert p.ddio_bytes() == 8 * 2**20
    assert p.source == str(f)


def _one_error(path):
    from rxbisect.errors import RxbError
    with pytest.raises(RxbError) as err:
        profile.load(str(path))
    msg = str(err.value)
    assert msg and "\n" not in msg
    return msg


def test_a_profile_that_is_not_utf8_is_one_error(tmp_path):
    # fuzz_profile's input: one byte that is not UTF-8 in a key name.
    text = profile.locate("reference").read_bytes().replace(b"service_ns", b"ser\x98vice_ns")
    f = tmp_path / "latin.toml"
    f.write_bytes(text)
    msg = _one_error(f)
    assert msg.startswith(f"{f}: not valid TOML: not UTF-8 text (byte 0x98 at offset")


def test_a_profile_integer_of_more_than_4300_digits_is_one_error(tmp_path):
    text = profile.locate("reference").read_text()
    f = tmp_path / "digits.toml"
    f.write_text(text.replace("freq_ghz = 2.1", "freq_ghz = 1" + "0" * 4300))
    assert _one_error(f) == f"{f}: not valid TOML: an integer of more than 4300 digits " \
                            "(TOML integers are 64-bit)"


def test_a_float_key_beyond_the_float_range_is_not_finite(tmp_path):
    text = profile.locate("reference").read_text()
    f = tmp_path / "huge.toml"
    f.write_text(text.replace("freq_ghz = 2.1", "freq_ghz = 1" + "0" * 400))
    msg = _one_error(f)
    assert "cpu.freq_ghz = 1" + "0" * 400 + ": not a finite number" in msg


@pytest.mark.parametrize("old, new, message", [
    # finite, but past any machine: the calculators overflowed into tracebacks
    ("size_mib = 22.0", "size_mib = 1e308", "llc.size_mib = 1e+308: out of range"),
    ("link_gbps = 100.0", "link_gbps = 1e308", "nic.link_gbps = 1e+308: out of range"),
    # rxb sim ran it and delivered nothing
    ("freq_ghz = 2.1", "freq_ghz = 1e-300", "cpu.freq_ghz = 1e-300: out of range"),
    # the engine refused it as an engine failure, naming its own field
    ("reta_size = 512", "reta_size = 3", "nic.reta_size = 3: out of range; allowed: a "
                                         "power-of-two integer from 64 to 4096"),
])
def test_a_number_no_machine_has_is_refused_naming_the_key(tmp_path, old, new, message):
    text = profile.locate("reference").read_text()
    assert old in text
    f = tmp_path / "odd.toml"
    f.write_text(text.replace(old, new))
    assert message in _one_error(f)


def test_reference_dram_curve_is_the_fit_of_the_published_curve():
    """idle_ns and service_ns are fitted (scripts/fit_dram.py), not chosen: the profile must
    hold what the script derives from docs/calibration.md's MLC curve."""
    fit_dram = load_script("scripts/fit_dram.py")
    idle, service, rows = fit_dram.fit()
    dram = profile.load("reference").dram
    assert dram.idle_ns == pytest.approx(idle, abs=0.05)
    assert dram.service_ns == pytest.approx(service, abs=0.05)
    assert dram.efficiency == fit_dram.EFFICIENCY
    # the fit is close to every published point (a wrong curve shape would not be)
    assert max(abs(model - ns) for _, ns, model in rows) < 5.0
