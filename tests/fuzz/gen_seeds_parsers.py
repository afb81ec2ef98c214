# SPDX-License-Identifier: BSD-3-Clause
"""Seeds and dictionaries of the parser fuzz targets (fuzz_pcap, fuzz_simcfg,
fuzz_calib, fuzz_profile); gen_seeds.py calls these. See docs/fuzzing.md."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

# ---- fuzz_pcap ----------------------------------------------------------------

MAGIC_US, MAGIC_NS = 0xa1b2c3d4, 0xa1b23c4d


def pcap(records, linktype=1, nsec=False, big=False, snaplen=65535):
    """A classic pcap file; records are (sec, frac, data[, orig_len[, caplen]])."""
    e = ">" if big else "<"
    out = struct.pack(e + "IHHiIII", MAGIC_NS if nsec else MAGIC_US, 2, 4, 0, 0, snaplen,
                      linktype)
    for r in records:
        sec, frac, data = r[:3]
        orig = r[3] if len(r) > 3 else len(data)
        cap = r[4] if len(r) > 4 else len(data)
        out += struct.pack(e + "IIII", sec, frac, cap, orig) + data
    return out


def mac(n):
    return bytes([2, 0, 0, 0, 0, n])


def eth(payload, etype=0x0800, tags=()):
    h = mac(2) + mac(1)
    for tpid, vid in tags:
        h += struct.pack(">HH", tpid, vid)
    return h + struct.pack(">H", etype) + payload


def l4(sport, dport, proto):
    if proto == 6:
        return struct.pack(">HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x10, 65535, 0, 0)
    if proto == 132:
        return struct.pack(">HHII", sport, dport, 7, 0)
    return struct.pack(">HHHH", sport, dport, 8, 0)


def ipv4(proto=17, sip=0x0a000001, dip=0x0a000002, payload=None, frag=0, opts=b"",
         sport=1234, dport=80):
    body = payload if payload is not None else l4(sport, dport, proto)
    ihl = 5 + len(opts) // 4
    return struct.pack(">BBHHHBBHII", 0x40 | ihl, 0, 4 * ihl + len(body), 1, frag, 64, proto,
                       0, sip, dip) + opts + body


def ipv6(proto=6, payload=None, ext=(), sport=443, dport=5555):
    """ext: extension headers (type, body after the next-header byte), in order."""
    body = payload if payload is not None else l4(sport, dport, proto)
    chain = b""
    for i, (_, hdr) in enumerate(ext):
        chain += bytes([ext[i + 1][0] if i + 1 < len(ext) else proto]) + hdr
    first = ext[0][0] if ext else proto
    return (struct.pack(">IHBB", 0x60000000, len(chain) + len(body), first, 64)
            + (1).to_bytes(16, "big") + (2).to_bytes(16, "big") + chain + body)


def sll(payload, etype=0x0800):
    return struct.pack(">HHH8sH", 0, 1, 6, mac(1) + b"\0\0", etype) + payload


def sll2(payload, etype=0x0800):
    return struct.pack(">HHIHBB8s", etype, 0, 2, 1, 0, 6, mac(1) + b"\0\0") + payload


def pcap_seeds():
    v4u, v4t = ipv4(17), ipv4(6, 0xc0a80001, 0xc0a80002, sport=40000, dport=443)
    sctp = ipv4(132, sport=2905, dport=2905)
    icmp = ipv4(1, payload=b"\x08\0\0\0\0\1\0\1")
    arp = bytes(28)
    hop = (0, bytes([0]) + bytes(6))                      # hop-by-hop, 8 bytes
    rout = (43, bytes([0]) + bytes(6))                    # routing, 8 bytes
    dopt = (60, bytes([1]) + bytes(14))                   # destination options, 16 bytes
    frag1 = (44, bytes([0]) + struct.pack(">HI", 0x0001, 7))   # offset 0, more
    fragn = (44, bytes([0]) + struct.pack(">HI", 0x0101, 7))   # offset 32: no ports
    ah = (51, bytes([2]) + bytes(10))                     # AH, (2 + 2) x 4 bytes
    s = {}
    s["eth_v4_us_le"] = pcap([
        (1000, 0, eth(v4u)), (1000, 10, eth(v4t)), (1000, 20, eth(sctp)),
        (1000, 30, eth(icmp)), (1000, 40, eth(arp, 0x0806)),
        (1000, 50, eth(ipv4(17, frag=0x2000))),            # first fragment: ports
        (1000, 60, eth(ipv4(17, frag=0x00b9, payload=bytes(16)))),  # not first
        (1000, 70, eth(ipv4(6, opts=b"\x01\x01\x01\x00"))),  # options, ihl 6
        (1000, 65, eth(v4u)),                              # backwards: reordered
        (1001, 999999, eth(v4u))])
    s["eth_v6_ns_be"] = pcap([
        (2000, 0, eth(ipv6(6), 0x86dd)),
        (2000, 500, eth(ipv6(6, ext=[hop, rout, dopt]), 0x86dd)),
        (2000, 900, eth(ipv6(17, ext=[frag1]), 0x86dd)),
        (2000, 1200, eth(ipv6(17, ext=[fragn], payload=bytes(8)), 0x86dd)),
        (2000, 1500, eth(ipv6(6, ext=[ah]), 0x86dd)),
        (2000, 1800, eth(ipv6(59, payload=b""), 0x86dd)),
        (2001, 999999999, eth(ipv6(132), 0x86dd))], nsec=True, big=True)
    s["eth_vlan"] = pcap([
        (1, 0, eth(v4u, tags=[(0x8100, 10)])),
        (1, 1, eth(ipv6(17), 0x86dd, tags=[(0x88a8, 100), (0x8100, 10)])),
        (1, 2, eth(v4t, tags=[(0x9100, 1), (0x88a8, 2), (0x8100, 3)])),
        (1, 3, eth(v4u, tags=[(0x8100, 1)] * 4)),          # a fourth tag: not parsed
        (1, 4, eth(v4u, tags=[(0x8100, 10)])[:16])])       # cut inside the tag
    s["raw_101"] = pcap([(5, 0, v4u), (5, 1, ipv6(6)), (5, 2, bytes(20))], linktype=101)
    s["raw_12_be"] = pcap([(5, 0, v4t), (5, 1, ipv6(17))], linktype=12, big=True)
    s["raw_14"] = pcap([(5, 0, sctp), (5, 1, v4u[:22])], linktype=14)  # ports cut
    s["ipv4_228"] = pcap([(5, 0, v4u), (5, 1, ipv6(6))], linktype=228)
    s["ipv6_229_ns"] = pcap([(5, 0, ipv6(6)), (5, 1, v4u)], linktype=229, nsec=True)
    s["sll_113"] = pcap([(7, 0, sll(v4u)), (7, 1, sll(ipv6(6), 0x86dd)),
                         (7, 2, sll(arp, 0x0806)), (7, 3, sll(v4u)[:40])], linktype=113)
    s["sll2_276"] = pcap([(7, 0, sll2(v4t)), (7, 1, sll2(ipv6(17), 0x86dd)),
                          (7, 2, sll2(v4u)[:44])], linktype=276, big=True)
    s["snaplen_cut"] = pcap([(9, 0, eth(v4t)[:40], 60), (9, 1, eth(ipv6(6), 0x86dd)[:56], 74),
                             (9, 3, b"", 60)], snaplen=56)
    s["oversize"] = pcap([(9, 0, eth(v4u), 9600), (9, 1, eth(v4t), 65535),
                          (9, 2, eth(v4u), 0)])
    s["fcs_bits_linktype"] = pcap([(9, 0, eth(v4u))], linktype=0x10000001)
    s["time_gap"] = pcap([(100, 0, eth(v4u)), (100 + 9000000, 0, eth(v4u)),
                          (50, 0, eth(v4u))])
    s["header_only"] = pcap([])
    s["trunc_record_header"] = pcap([(1, 0, eth(v4u))]) + bytes(10)
    s["trunc_data"] = pcap([(1, 0, eth(v4u), len(eth(v4u)), 100)])
    s["caplen_huge"] = pcap([(1, 0, b"", 262145, 262145)])
    s["frac_us_bad"] = pcap([(1, 0, eth(v4u)), (1, 1000000, eth(v4u))])
    s["frac_ns_bad"] = pcap([(1, 1000000000, eth(v4u))], nsec=True)
    s["pcapng"] = struct.pack("<IIIHHq", 0x0a0d0d0a, 28, 0x1a2b3c4d, 1, 0, -1) + bytes(4)
    s["bad_linktype"] = pcap([(1, 0, b"abcd")], linktype=105)
    s["short_file_header"] = pcap([])[:10]
    # Regressions (docs/fuzzing.md): inputs of bugs the fuzzer found, as it
    # found them. time-overflow: a packet 570425345 s before the first
    # (clamped; its time overflowed int64); len-wrap: raw IP, orig_len
    # 0xffffffff (oversize, was a 64-byte frame); short-cooked-len: an SLL2
    # record of 0 captured bytes (its length kept the cooked header);
    # short-ip-l3: SLL2, an IPv4 header cut at 7 bytes (counted as IP, l3 = 0).
    s["regress-time-overflow"] = bytes.fromhex(
        "d4c3b2a1420004000000000000000000ffe4000001000000010000220000000000000000"
        "08114000000000000000000000000000bb150100")
    s["regress-len-wrap"] = bytes.fromhex(
        "d4c3b2a102000400001940000000000000ff000065000000050000000000000000000000"
        "ffffffff00000000")
    s["regress-short-cooked-len"] = bytes.fromhex(
        "a1b2c3d43202000400000000000001000000ffff00000114000000000000000000000000"
        "0ad20050")
    s["regress-short-ip-l3"] = bytes.fromhex(
        "a1b2c3d40002000400000000000000000000ffff0000011400000000000000000000001b"
        "0000003c0800000000000002000100004500002800010000400001d4c30000")
    # A packet further after the first than 64-bit picoseconds hold: -EBADMSG
    # (one µs past 2^64 - 1 ps), after one just within.
    s["regress-time-too-far"] = pcap([(1000, 0, eth(v4u)), (1000 + 18446744, 73709, eth(v4u)),
                                      (1000 + 18446744, 73710, eth(v4t))])
    return s


# ---- fuzz_simcfg, fuzz_calib ----------------------------------------------------

ARCHS = ["privring", "small_privring", "shring", "shring_list", "dyn_shring", "rxbisect",
         "spool"]
# name: (built-in scenario or None, --set overrides)
CONFIG_VARIANTS = {
    "profile_large": (None, ["system.profile=large", "arch.name=rxbisect"]),
    "proc_var_shring": ("proc-var", ["arch.name=shring"]),
    "traffic_var_rxbisect": ("traffic-var", ["arch.name=rxbisect"]),
    "bursts_dyn_shring": ("bursts", ["arch.name=dyn_shring"]),
    "emulated_rxbisect": (None, ["arch.name=rxbisect", "arch.emulated=true"]),
    "kvs_zipf": (None, ["workload.nf=kvs", "traffic.key_dist=zipf"]),
    "hog_stalled": (None, ["system.cores=8", "system.hog=stream", "system.hog_instances=2",
                           "system.stalled_cores=[1]", "system.stall_at_ms=1",
                           "system.stall_for_ms=1"]),
    "rxlist_batch": (None, ["arch.name=shring_list", "arch.rxlist_batch=4"]),
}


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def rxb_json(rxb, sets, scenario=None):
    cmd = [rxb, "scenario", "show", "--json"] + [a for kv in sets for a in ("--set", kv)]
    if scenario:
        cmd.append(scenario)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    src = doc.get("profile", {}).get("source")
    if isinstance(src, str) and os.path.isabs(src):  # not this machine's path
        doc["profile"]["source"] = os.path.relpath(src, os.path.dirname(os.path.dirname(rxb)) + "/..")
    return doc


def simcfg_seeds(root):
    rxb = os.path.join(root, ".venv", "bin", "rxb")
    if not os.access(rxb, os.X_OK):
        print(f"{rxb} not found (make build): simcfg seeds kept as they are", file=sys.stderr)
        return None
    s = {}
    # ax_policy round_robin: a name every version of the vocabulary has had
    # (the default was renamed), so the seeds pass older and newer engines.
    rr = ["arch.ax_policy=round_robin"]
    for arch in ARCHS:
        s["arch_" + arch] = compact(rxb_json(rxb, [f"arch.name={arch}"] + rr))
    s["arch_rxbisect_default_policy"] = compact(rxb_json(rxb, ["arch.name=rxbisect"]))
    s["arch_rxbisect_most_available"] = compact(rxb_json(
        rxb, ["arch.name=rxbisect", "arch.ax_policy=most_available"]))
    for name, (scenario, sets) in CONFIG_VARIANTS.items():
        s[name] = compact(rxb_json(rxb, sets + rr, scenario))
    with open(os.path.join(root, "sim", "calibration", "default.json")) as f:
        cal = json.load(f)
    doc = rxb_json(rxb, ["arch.name=privring"] + rr)
    doc["calibration"] = {k: cal[k] for k in ("origin", "date", "machine", "cycles")}
    s["calibration_object"] = compact(doc)
    # Regressions: accepted by simcfg.c before the scenario library (read
    # modulo 2^32 / added in 32 bits); must be rejected.
    doc = rxb_json(rxb, ["arch.name=shring_list"] + rr)
    doc["arch"]["rxlist_batch"] = 4294967297
    s["regress-u32-wrap"] = compact(doc)
    doc = rxb_json(rxb, ["arch.name=privring"] + rr)
    doc["arch"]["headroom_bytes"] = 4294966295
    s["regress-bytes-wrap"] = compact(doc)
    doc = rxb_json(rxb, rr)
    del doc["derived"]
    s["reject_no_derived"] = compact(doc)
    # Regression: cores_per_nic summed in 32 bits, [2^32 - 1, 9] passed as
    # 8 cores and nic_of_core was walked past its end; must be rejected.
    doc = rxb_json(rxb, ["arch.name=privring", "system.cores=8"] + rr)
    doc["system"]["cores_per_nic"] = [4294967295, 9]
    doc["derived"]["nic_of_core"] = [0] * 8
    s["regress-cpn-wrap"] = compact(doc)
    return s


def calib_seeds(root):
    with open(os.path.join(root, "sim", "calibration", "default.json"), "rb") as f:
        raw = f.read()
    cal = json.loads(raw)
    small = {k: cal[k] for k in ("origin", "date", "machine", "cycles")}
    s = {"default": raw, "compact": compact(small)}
    ints = json.loads(json.dumps(small))
    ints["cycles"] = {k: (round(v) if isinstance(v, float) else
                          {a: round(x) for a, x in v.items()})
                      for k, v in ints["cycles"].items()}
    ints["origin"] = "o" * 600   # longer than the 512-byte buffer
    ints["machine"] = {"cpu": "c" * 200}
    s["integers_long_strings"] = compact(ints)
    missing = json.loads(json.dumps(small))
    del missing["cycles"]["emu_per_pkt"]["spool"]
    s["reject_missing_key"] = compact(missing)
    return s


def keys_of(doc, out):
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.add(k)
            keys_of(v, out)
    elif isinstance(doc, list):
        for v in doc:
            keys_of(v, out)


def dict_line(token):
    """One libFuzzer dictionary entry (a quoted string, \\xNN escapes)."""
    esc = "".join(c if c.isalnum() or c in "_.-:[]{}, =+/" else f"\\x{ord(c):02x}"
                  for c in token)
    return f'"{esc}"'


def write_simcfg_dict(path, configs, calibs):
    keys = set()
    for raw in list(configs.values()) + list(calibs.values()):
        keys_of(json.loads(raw), keys)
    strings = set(ARCHS) | {
        "linked_random", "round_robin", "most_available", "all", "per_nic", "groups", "none",
        "basic", "spp", "constant", "poisson", "onoff", "target", "trace", "l3fwd", "nat", "lb",
        "synthetic", "kvs", "counter", "untouched", "read", "written", "stream", "pagerank",
        "uniform", "zipf", "reference", "large", "auto"}
    lines = ["# libFuzzer dictionary of fuzz_simcfg and fuzz_calib (written by gen_seeds.py):",
             "# every key of the seed configs and of the calibration, the enum values,",
             "# and values at the edges of the checks."]
    lines += [dict_line(f'"{k}":') for k in sorted(keys)]
    lines += [dict_line(f'"{v}"') for v in sorted(strings)]
    lines += [dict_line(t) for t in (
        "true", "false", "null", "0", "1", "-1", "2", "64", "4096", "1024", "1048576",
        "4294967295", "4294967296", "9223372036854775807", "1e308", "-0.0", "0.5", "[]",
        "{}", '"calibration":{}', '"/dev/null"')]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- fuzz_profile ---------------------------------------------------------------

def strip_comments(text):
    """Drop comment lines and trailing comments (the profiles have no '#' in strings)."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"\s*#.*$", "", line)
        if line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def profile_seeds(root):
    pdir = os.path.join(root, "python", "rxbisect", "vocab", "profiles")
    s = {}
    for name in sorted(os.listdir(pdir)):
        if name.endswith(".toml"):
            with open(os.path.join(pdir, name)) as f:
                text = f.read()
            s[name[:-5] + "_full"] = text.encode()
            s[name[:-5]] = strip_comments(text).encode()
    ref = s["reference"].decode()
    s["reject_ddio_ways"] = ref.replace("ddio_ways = 2", "ddio_ways = 12").encode()
    s["reject_unknown_key"] = ref.replace("[nic]", "[nic]\nmtu = 1500").encode()
    s["reject_type"] = ref.replace("ways = 11", 'ways = "11"').encode()
    s["reject_line_bytes"] = ref.replace("line_bytes = 64", "line_bytes = 48").encode()
    s["reject_missing_section"] = ref.split("[nic]")[0].encode()
    s["dotted_keys"] = re.sub(r"^(\w+) = ", r"cpu.\1 = ", ref.split("[llc]")[0].split("[cpu]")[1],
                              flags=re.M).encode() + b"[llc]" + ref.split("[llc]")[1].encode()
    # Regressions (docs/fuzzing.md), each must be one error line: a byte that
    # is not UTF-8 (as the fuzzer found it), a float key given an integer
    # beyond the float range, an integer of more than 4300 digits, arrays
    # nested deeper than tomllib's recursion goes.
    s["regress-not-utf8"] = s["dotted_keys"].replace(b"service_ns", b"ser\x98vice_ns")
    s["regress-float-overflow"] = ref.replace("freq_ghz = 2.1", "freq_ghz = 1" + "0" * 400).encode()
    s["regress-int-digits"] = ref.replace("freq_ghz = 2.1", "freq_ghz = 1" + "0" * 4300).encode()
    s["regress-nested"] = ref.replace("freq_ghz = 2.1",
                                      "freq_ghz = " + "[" * 1000 + "]" * 1000).encode()
    return s


def write_profile_dict(path, seeds):
    keys = set()
    for raw in seeds.values():
        keys |= set(re.findall(r"^\s*([A-Za-z_]\w*)\s*=", raw.decode(errors="replace"), re.M))
    lines = ["# libFuzzer dictionary of fuzz_profile (written by gen_seeds.py): profile",
             "# keys, sections, TOML syntax."]
    lines += [dict_line(k + " = ") for k in sorted(keys)]
    lines += [dict_line(f"[{s}]") for s in ("cpu", "llc", "dram", "pcie", "nic")]
    lines += [dict_line(t) for t in (
        "true", "false", "inf", "nan", "-inf", "+inf", "0x", "0o", "0b", "1e309", '"""',
        "'''", "[[", "]]", "{", "}", "1979-05-27T07:32:00Z", "07:32:00", "1979-05-27",
        "9223372036854775807", "-9223372036854775808", "1_000")]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_dir(path, seeds, ext):
    """Replace the directory's seeds by these."""
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    for name, data in sorted(seeds.items()):
        with open(os.path.join(path, name + ext), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds in {path}")
