"""bench/pmd_bench.py runs testpmd on hugepages only where the EAL can map them: 1 GiB free of
the default size and a hugetlbfs mount of that size this user can write. Free pages without such
a mount once made every testpmd of the benchmark fail to start instead of running on 4 KiB
pages."""
from __future__ import annotations

from pathlib import Path

from conftest import load_script

ROOT = Path(__file__).resolve().parents[2]
pmd_bench = load_script("bench/pmd_bench.py")

FREE_2M = {"Hugepagesize": 2048, "HugePages_Free": 600}  # 1200 MiB of 2 MiB pages


def usable(tmp_path, mounts_text, mi=FREE_2M):
    mounts = tmp_path / "mounts"
    mounts.write_text(mounts_text)
    return pmd_bench.hugepages_usable(mi, str(mounts))


def test_page_size_option():
    assert pmd_bench.page_kib("rw,relatime,pagesize=2M") == 2048
    assert pmd_bench.page_kib("rw,pagesize=1G") == 1024 * 1024
    assert pmd_bench.page_kib("rw,pagesize=2048K") == 2048
    assert pmd_bench.page_kib("rw,relatime") is None


def test_needs_a_writable_mount_of_the_free_size(tmp_path):
    d = tmp_path / "huge"
    d.mkdir()
    assert usable(tmp_path, f"hugetlbfs {d} hugetlbfs rw,pagesize=2M 0 0\n")
    assert usable(tmp_path, f"nodev {d} hugetlbfs rw,relatime 0 0\n")
    assert not usable(tmp_path, "proc /proc proc rw 0 0\n")
    assert not usable(tmp_path, f"hugetlbfs {d} hugetlbfs rw,pagesize=1G 0 0\n")
    assert not usable(tmp_path, "hugetlbfs /nonexistent/h hugetlbfs rw,pagesize=2M 0 0\n")


def test_needs_a_gib_of_free_pages(tmp_path):
    d = tmp_path / "huge"
    d.mkdir()
    line = f"hugetlbfs {d} hugetlbfs rw,pagesize=2M 0 0\n"
    assert not usable(tmp_path, line, {"Hugepagesize": 2048, "HugePages_Free": 511})
    assert not usable(tmp_path, line, {})


def test_nic_thread_counts_that_would_time_slice_are_skipped():
    """rxbisect/nicK needs max(Q, K) forwarding and K NIC lcores, all busy: on 2 CPUs the
    /nic2 and /nic4 runs put 4 and 8 spinning threads on 2 CPUs, and their figures (written
    as if nothing was shared) measured the scheduler."""
    kept, skipped = pmd_bench.nic_thread_counts([0, 1], 1, [2, 4])
    assert kept == [] and set(skipped) == {"nic2", "nic4"}
    assert "needs 4 CPUs (2 forwarding + 2 NIC lcores" in skipped["nic2"]
    assert pmd_bench.nic_thread_counts(list(range(16)), 1, [2, 4]) == ([2, 4], {})
    assert pmd_bench.nic_thread_counts(list(range(6)), 1, [2, 4]) == (
        [2], {"nic4": "needs 8 CPUs (4 forwarding + 4 NIC lcores, all busy); this process "
                      "may use 6"})
