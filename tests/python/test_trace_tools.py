"""`rxb trace stats` / `rxb trace gen`: pcap reading, RSS as the NIC computes it, per-core
load; the generator through its driver.

The captures are made here, packet by packet, so every count is known; the RSS values are
Microsoft's published verification vectors ("Verifying the RSS Hash Calculation"), and
per-core loads are recounted with a bit-by-bit Toeplitz written independently of the
table-driven one in rxbisect.trace.
"""

import ctypes
import ipaddress
import json
import struct
from pathlib import Path

import pytest

from rxbisect.checkout import repo_root
from rxbisect.commands.cli import main
from rxbisect.tools import trace

# (source, destination, source port, destination port, hash of the addresses,
#  hash with the ports) with the Microsoft key, input order src, dst, sport, dport.
MS_IPV4 = [
    ("66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178),
    ("199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea),
    ("24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a),
    ("38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f),
    ("153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2),
]
MS_IPV6 = [
    ("3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766, 0x2cc18cd5, 0x40207d3d),
    ("3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739, 0x0f0c461c, 0xdde51bbf),
    ("3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf", 44251, 38024,
     0x4b61e985, 0x02d1feef),
]


def toeplitz_bitwise(data: bytes, key: bytes = trace.KEY) -> int:
    """The specification's definition: for each set input bit i, XOR the 32 key bits
    starting at bit i (key as one big integer)."""
    k, n, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (n - 32 - i)) & 0xFFFFFFFF
    return h


@pytest.mark.parametrize("src, dst, sp, dp, h3, h4", MS_IPV4 + MS_IPV6)
def test_microsoft_vectors(src, dst, sp, dp, h3, h4):
    a = ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed
    ports = struct.pack(">HH", sp, dp)
    t = trace.Toeplitz()
    assert t.hash(a) == h3 == toeplitz_bitwise(a)
    assert t.hash(a + ports) == h4 == toeplitz_bitwise(a + ports)


# ---- hand-made captures ----------------------------------------------------------------

def eth(payload: bytes, etype: int, vlan: int | None = None) -> bytes:
    tag = struct.pack(">HH", 0x8100, vlan) if vlan is not None else b""
    return b"\x02" * 6 + b"\x04" * 6 + tag + struct.pack(">H", etype) + payload


def ipv4(src, dst, proto, l4: bytes, frag: int = 0, pad: int = 0) -> bytes:
    body = l4 + b"\0" * pad
    return (struct.pack(">BBHHHBBH", 0x45, 0, 20 + len(body), 0, frag, 64, proto, 0)
            + ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed + body)


def ipv6(src, dst, nh, l4: bytes, pad: int = 0) -> bytes:
    body = l4 + b"\0" * pad
    return (struct.pack(">IHBB", 6 << 28, len(body), nh, 64) + ipaddress.ip_address(src).packed
            + ipaddress.ip_address(dst).packed + body)


def l4(sp, dp) -> bytes:
    return struct.pack(">HH", sp, dp) + b"\0" * 16


def write_pcap(path: Path, frames, order="<", nsec=False, linktype=1, snaplen=None):
    magic = 0xa1b23c4d if nsec else 0xa1b2c3d4
    out = struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, linktype)
    for i, f in enumerate(frames):
        cap = f[:snaplen] if snaplen else f
        out += struct.pack(order + "IIII", 100 + i, 0, len(cap), len(f)) + cap
    path.write_bytes(out)


def write_pcapng(path: Path, frames, tsresol=9):
    def block(t, body):
        body += b"\0" * (-len(body) % 4)
        n = len(body) + 12
        return struct.pack("<II", t, n) + body + struct.pack("<I", n)
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    opt = struct.pack("<HHB3x", 9, 1, tsresol) + struct.pack("<HH", 0, 0)
    idb = block(1, struct.pack("<HHI", 1, 0, 65535) + opt)
    epbs = b"".join(block(6, struct.pack("<IIIII", 0, 0, i * 1000, len(f), len(f)) + f)
                    for i, f in enumerate(frames))
    path.write_bytes(shb + idb + epbs)


# Five flows, 10 packets; frame sizes with the 4 B FCS: A 14 + 20 + 20 = 54 -> 64 (the
# minimum); B 18 (802.1Q) + 20 + 20 + 38 + 4 = 100; C 14 + 40 + 20 + 122 + 4 = 200;
# D 14 + 20 + 20 + 1460 + 4 = 1518; FRAG 14 + 20 + 20 + 8942 + 4 = 9000.
A = eth(ipv4("10.0.0.1", "10.0.0.2", 6, l4(1000, 80)), 0x0800)            # 54 B -> 64
B = eth(ipv4("10.0.0.3", "10.0.0.4", 17, l4(53, 5353), pad=38), 0x0800, vlan=7)  # 100
C = eth(ipv6("2001:db8::1", "2001:db8::2", 6, l4(443, 5000), pad=122), 0x86DD)  # 200
D = eth(ipv4("10.0.0.5", "10.0.0.6", 6, l4(1, 2), pad=1460), 0x0800)      # 1518
FRAG = eth(ipv4("10.0.0.7", "10.0.0.8", 17, l4(9, 9), frag=0x2000, pad=8942), 0x0800)  # 9000
ARP = eth(b"\0" * 28, 0x0806)                                              # 64, not IP
FRAMES = [A, A, A, B, B, C, D, D, FRAG, ARP]


def expected_cores(frames, cores, reta_size=512):
    """Per-core packets, recounted: the hash input built from the known headers by hand,
    hashed bit by bit; queue = RETA entry (hash low bits) -> entry mod cores."""
    inputs = {id(A): ("10.0.0.1", "10.0.0.2", (1000, 80)), id(B): ("10.0.0.3", "10.0.0.4",
              (53, 5353)), id(C): ("2001:db8::1", "2001:db8::2", (443, 5000)),
              id(D): ("10.0.0.5", "10.0.0.6", (1, 2)),
              id(FRAG): ("10.0.0.7", "10.0.0.8", None)}  # a fragment: addresses only
    load = [0] * cores
    for f in frames:
        if id(f) not in inputs:
            h = 0  # non-IP: no hash
        else:
            s, d, p = inputs[id(f)]
            data = ipaddress.ip_address(s).packed + ipaddress.ip_address(d).packed
            h = toeplitz_bitwise(data + (struct.pack(">HH", *p) if p else b""))
        load[(h & (reta_size - 1)) % cores] += 1
    return load


@pytest.mark.parametrize("fmt", ["le-us", "be-us", "le-ns", "pcapng"])
def test_stats_of_a_hand_made_capture(tmp_path, fmt):
    path = tmp_path / "t.pcap"
    if fmt == "pcapng":
        write_pcapng(path, FRAMES)
    else:
        write_pcap(path, FRAMES, order="<" if fmt.startswith("le") else ">",
                   nsec=fmt.endswith("ns"))
    s = trace.stats(path, cores=3, reta_size=512)
    assert s["packets"] == 10 and s["non_ip"] == 1 and s["flows"] == 5
    # 64 x 4 (A x 3, ARP), 100 x 2, 200, 1518 x 2, 9000
    assert s["bytes"] == 64 * 4 + 100 * 2 + 200 + 1518 * 2 + 9000
    hist = {(b["lo"], b["hi"]): b["packets"] for b in s["size_histogram"]}
    assert hist == {(64, 64): 4, (65, 127): 2, (128, 255): 1, (256, 511): 0, (512, 1023): 0,
                    (1024, 1518): 2, (1519, None): 1}
    assert [c["packets"] for c in s["per_core"]] == expected_cores(FRAMES, 3)
    # 10 packets 1 s apart (pcap) or 1000 ticks of 1 ns apart (pcapng, if_tsresol 9)
    assert s["duration_s"] == pytest.approx(9e-6 if fmt == "pcapng" else 9.0)


def test_max_min_ratio_counted_by_hand(tmp_path):
    # 1 core: everything on it, ratio 1. 64 cores with 5 flows: some cores get nothing.
    path = tmp_path / "t.pcap"
    write_pcap(path, FRAMES)
    assert trace.stats(path, cores=1)["max_min_packets"] == 1.0
    assert trace.stats(path, cores=64)["max_min_packets"] is None
    load = expected_cores(FRAMES, 2)
    s = trace.stats(path, cores=2)
    assert s["max_min_packets"] == max(load) / min(load)


def test_snapped_capture_keeps_original_lengths(tmp_path):
    # a 96-byte snapshot still holds every header; frame sizes come from orig_len
    path = tmp_path / "t.pcap"
    write_pcap(path, [D, FRAG], snaplen=96)
    s = trace.stats(path, cores=4)
    assert s["bytes"] == 1518 + 9000 and s["flows"] == 2


def test_raw_ip_link_type(tmp_path):
    path = tmp_path / "t.pcap"
    write_pcap(path, [ipv4("10.0.0.1", "10.0.0.2", 6, l4(1000, 80))], linktype=101)
    s = trace.stats(path, cores=3)
    # 40 B of IP + 14 B Ethernet + 4 B FCS = 58 -> 64; same flow, same core as frame A
    assert s["bytes"] == 64 and s["flows"] == 1
    assert [c["packets"] for c in s["per_core"]] == expected_cores([A], 3)


LIB = repo_root() / "build/lib/librxb.so"


@pytest.mark.skipif(not LIB.is_file(), reason="librxb.so not built")
def test_same_key_and_hash_as_the_c_library():
    """The NIC model's own code (lib/rss.c) on the same frames gives the same hashes."""
    lib = ctypes.CDLL(str(LIB))
    assert bytes((ctypes.c_uint8 * 40).in_dll(lib, "rxb_rss_default_key")) == trace.KEY
    rss = ctypes.create_string_buffer(ctypes.c_size_t.in_dll(lib, "rxb_rss_state_bytes").value)
    err = ctypes.create_string_buffer(512)
    assert lib.rxb_rss_init(rss, (ctypes.c_uint8 * 40).in_dll(lib, "rxb_rss_default_key"),
                            40, err) == 0
    lib.rxb_rss_frame.restype = ctypes.c_uint32
    t = trace.Toeplitz()
    for f in (A, B, C, D, FRAG, ARP):
        dport = ctypes.c_uint16()
        c_hash = lib.rxb_rss_frame(rss, f, len(f), ctypes.byref(dport))
        p = trace.parse(trace.Record(0.0, f, len(f), 1))
        assert (t.hash(p.rss_input) if p.rss_input else 0) == c_hash


@pytest.mark.parametrize("data, words", [
    (b"hello world, not a capture", "is neither pcap"),
    (b"\xd4\xc3\xb2\xa1", "truncated file header"),
    (struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + b"\0" * 8,
     "truncated record header"),
    (struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 147), "link type 147"),
])
def test_bad_capture_is_one_error_line(tmp_path, capsys, data, words):
    path = tmp_path / "bad.pcap"
    path.write_bytes(data + (struct.pack("<IIII", 0, 0, 4, 4) + b"abcd"
                             if b"\x93\x00\x00\x00" in data else b""))
    assert main(["trace", "stats", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rxb: error:") and words in err[0]


def test_stats_cli_json_and_bad_cores(tmp_path, capsys):
    path = tmp_path / "t.pcap"
    write_pcap(path, FRAMES)
    assert main(["trace", "stats", str(path), "--cores", "3", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["reta_size"] == 512  # the reference profile's nic.reta_size
    assert [c["packets"] for c in s["per_core"]] == expected_cores(FRAMES, 3)
    assert main(["trace", "stats", str(path), "--cores", "0"]) == 2
    assert "--cores 0: must be an integer from 1" in capsys.readouterr().err
    # 0 is a size like any other (it once meant the profile's 512), and a profile is checked
    # even when --reta-size replaces its table size
    assert main(["trace", "stats", str(path), "--reta-size", "0"]) == 2
    assert "--reta-size 0: must be a power of two from 64 to 4096" in capsys.readouterr().err
    assert main(["trace", "stats", str(path), "--reta-size", "64", "--profile", "bogus"]) == 2
    assert "rxb: error: --profile bogus: system.profile = 'bogus'" in capsys.readouterr().err


def test_stats_shows_a_bar_over_the_file_when_asked(tmp_path, capsys, monkeypatch):
    """A capture of millions of packets read for minutes without a sign of life."""
    monkeypatch.setattr(trace, "BAR_EVERY", 1)
    path = tmp_path / "t.pcap"
    write_pcap(path, FRAMES)
    assert main(["trace", "stats", str(path), "--progress"]) == 0
    assert "trace stats: " in capsys.readouterr().err
    assert main(["trace", "stats", str(path), "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_stats_warns_of_cores_the_table_cannot_reach(tmp_path, capsys):
    """More cores than table entries left the last cores at 0 packets without a word."""
    path = tmp_path / "t.pcap"
    write_pcap(path, FRAMES)
    assert main(["trace", "stats", str(path), "--cores", "70", "--reta-size", "64"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "rxb: warning: --cores 70 is more than the 64 entries of the indirection table: "
        "cores 64 to 69 get no entry, so no packet"]
    assert main(["trace", "stats", str(path), "--cores", "64", "--reta-size", "64"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("args, error", [
    (["--reta-size", "-1"], "--reta-size -1: must be a power of two"),
    (["--reta-size", "0"], "--reta-size 0: must be a power of two"),
    (["--cores", "70000", "--reta-size", "64"], "--cores 70000: must be an integer"),
])
def test_stats_refuses_a_bad_spread_before_warning_about_it(tmp_path, capsys, args, error):
    """--reta-size -1 was warned about ("cores -1 to 15 get no entry") before it was refused."""
    path = tmp_path / "t.pcap"
    write_pcap(path, FRAMES)
    assert main(["trace", "stats", str(path), *args]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("rxb: error: ") and error in err[0], err


# ---- the generator -------------------------------------------------------------------

needs_sim = pytest.mark.skipif(not (repo_root() / "build/sim/rxb-tracegen").is_file(),
                               reason="rxb-tracegen not built")


@needs_sim
def test_gen_then_stats(tmp_path, capsys):
    out = tmp_path / "g.pcap"
    assert main(["trace", "gen", str(out), "--duration-ms", "3", "--flows", "400",
                 "--sizes", "64:1,1518:1", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    s = trace.stats(out, cores=8)
    assert s["packets"] == made["packets"] > 1000
    # --flows aims within 2 % of the flows the generator starts; a flow that starts too
    # late to send a packet is not in the capture, hence the looser bound on what is read
    assert abs(made["flows"] - 400) <= 0.02 * 400
    assert 0.9 * 400 <= s["flows"] <= made["flows"]
    sizes = {b["lo"]: b["packets"] for b in s["size_histogram"] if b["packets"]}
    assert set(sizes) == {64, 1024}  # only 64 B and 1518 B frames
    # offered load: ~10 Gbps of wire bits = frame bytes + 20 B preamble and gap, the rate
    # stats reports (it reported frame bits: 7.5 "Gbps" for a 10 Gbps trace of 64 B frames)
    wire = 8 * (s["bytes"] + 20 * s["packets"]) / s["duration_s"] / 1e9
    assert 3 < wire < 30
    assert s["rate_gbps"] == pytest.approx(wire)


@needs_sim
def test_gen_errors(tmp_path, capsys):
    out = str(tmp_path / "g.pcap")
    assert main(["trace", "gen", out, "--alpha", "0"]) == 2
    assert "rxb: error: --alpha 0: out of range; allowed: 0.001 to 10" in \
        capsys.readouterr().err  # the generator's own check, passed through
    assert main(["trace", "gen", out, "--duration-ms", "1", "--flows", "1000000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at most about" in err[0] and "flows" in err[0]
    assert main(["trace", "gen", out, "--sizes", "64-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rxb: error: --sizes 64-1: item '64-1' is not "
                                               "LEN:WEIGHT")
    assert main(["trace", "gen", out, "--flows", "10", "--min-pkts", "2"]) == 2
    assert "--flows sets --min-pkts" in capsys.readouterr().err
    # fewer flows than carry the rate: the bisection gave its bound, 271 flows (exit 0)
    assert main(["trace", "gen", out, "--duration-ms", "20", "--flows", "200"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["rxb: error: --flows 200: at least about 271 flows carry this rate at these "
                   "per-flow rates; lower --rate-gbps or raise --pps-median"]


def test_gen_into_what_cannot_be_written_is_a_usage_error(tmp_path, capsys):
    """A directory, or a path through a file, is the user's path to mend (exit 2), not an engine
    failure (exit 1, as a directory gave)."""
    (tmp_path / "f").write_text("")
    for out, why in ((tmp_path, "Is a directory"), (tmp_path / "f" / "g.pcap", "Not a directory")):
        assert main(["trace", "gen", str(out), "--duration-ms", "1"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"rxb: error: pcap '{out}': cannot create: {why}"]
