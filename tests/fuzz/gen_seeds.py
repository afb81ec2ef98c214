#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of the fuzz targets (docs/fuzzing.md).

fuzz_iface (OUT_DIR/*.bin): the byte layout is documented at the top of
fuzz_iface.c: a 24-byte configuration header, then operations. One seed per
design (and the rxBisect options), each with a schedule that delivers
bursts, receives, frees, ticks and drains, plus a few configurations
create() must reject.

fuzz_pcap (OUT_DIR/pcap/): small classic pcap files covering what
sim/models/pcap.h reads (both byte orders, µs and ns, every link type, VLAN tags,
IPv4 options and fragments, IPv6 extension headers, cut headers, oversize
and reordered packets) and every error it reports.

fuzz_simcfg (OUT_DIR/simcfg/): engine configs from `rxb scenario show
--json` (compacted), one per design plus profile, pattern, workload and
calibration variants. Needs .venv/bin/rxb (make build); kept as they are
without it.

fuzz_calib (OUT_DIR/calib/): sim/calibration/default.json and variants.

fuzz_profile (OUT_DIR/profile/): python/rxbisect/vocab/profiles/*.toml as they
are and without comments, plus a few a profile check must reject.

Also writes the dictionaries tests/fuzz/simcfg.dict (config and
calibration keys, enum values) and tests/fuzz/profile.dict.
Run: python3 tests/fuzz/gen_seeds.py [OUT_DIR]
"""
import os
import sys

from gen_seeds_parsers import (
    calib_seeds,
    pcap_seeds,
    profile_seeds,
    simcfg_seeds,
    write_dir,
    write_profile_dict,
    write_simcfg_dict,
)

# Header indices (see fuzz_iface.c).
ARCH = {"privring": 0, "small_privring": 1, "shring": 2, "shring_list": 3,
        "dyn_shring": 4, "rxbisect": 5, "spool": 6}
RING = {0: 0, 8: 1, 16: 2, 32: 3, 64: 4, 128: 5, 2: 6, 12: 7}  # value -> table index
POOL = {32: 0, 128: 1, 512: 2, 2048: 3, 8192: 4}
CACHE = {0: 0, 4: 1, 32: 2, 64: 3}
BATCH = {0: 0, 2: 1, 4: 2, 8: 3, 64: 4, 1: 5, 3: 6, 128: 7}  # flags bits 3-5


def batch_flags(batch):
    return BATCH[batch] << 3


def header(arch, cores=2, rx=32, cr=0, prefetch=0, share=0, ax=16, bx=64,
           policy=0, groups=0, flags=0, timeout=8, ports=0, mode=0, depth=0,
           basic_queues=0, low=0, high=0, window=2, to_shared=0x21,
           to_private=0x87, pool=2048, cache=4, seed=1):
    h = [ARCH[arch] if isinstance(arch, str) else arch, cores, RING[rx], RING[cr],
         prefetch, share, RING[ax], RING[bx // 4], policy, groups, flags, timeout,
         ports, mode, RING[depth], basic_queues, RING[low], RING[high], window,
         to_shared, to_private, POOL[pool], CACHE[cache], seed]
    assert len(h) == 24
    return bytes(h)


def schedule(dests, pollers, rounds=12):
    """Deliver, receive, free, tick, sample, drain; deterministic."""
    ops = []
    for r in range(rounds):
        d = r % dests
        ops += [0, d, 20 + r]                 # burst to one dest
        ops += [1, (d + 1) % dests, 3]        # a short one elsewhere
        ops += [2, r % pollers, 16]           # receive 16
        ops += [3, r % pollers, 8]            # free up to 8
        ops += [4, 2]                         # tick, clock + 128
        ops += [5, 200 if r < 6 else 5, 120 if r < 6 else 4, 1 if r == 9 else 0]
        if r % 4 == 3:
            ops += [6, d]                     # pipeline drop
            ops += [7]                        # drain
    ops += [0, dests, 1]                      # out-of-range dest
    return bytes(ops)


def seeds():
    s = {}
    for arch in ("privring", "small_privring", "shring", "shring_list"):
        s[arch] = header(arch, cores=2, rx=32) + schedule(2, 2)
    s["shring_4x2"] = header("shring", cores=4, rx=64, share=2, cr=16) + schedule(4, 4)
    s["shring_list_batch8"] = header("shring_list", cores=2, rx=16,
                                     flags=batch_flags(8)) + schedule(2, 2)
    s["shring_list_batch4_cr"] = header("shring_list", cores=3, rx=16, cr=16, prefetch=2,
                                        flags=batch_flags(4)) + schedule(3, 3)
    s["dyn_shring"] = header("dyn_shring", cores=2, rx=32, flags=4) + schedule(2, 2, 16)
    s["rxbisect"] = header("rxbisect", cores=3, ax=16, bx=64) + schedule(3, 3)
    s["rxbisect_coalesce"] = header("rxbisect", cores=3, ax=16, bx=64, flags=2,
                                    policy=1) + schedule(3, 3)
    s["rxbisect_2groups"] = header("rxbisect", cores=4, ax=8, bx=32, groups=2,
                                   policy=2) + schedule(4, 4)
    s["spool_spp"] = header("spool", cores=2, ports=4, mode=2, low=8, high=32) + \
        schedule(4, 4)
    s["spool_basic"] = header("spool", cores=2, ports=5, mode=1, depth=32,
                              basic_queues=2) + schedule(5, 2)
    s["spool_none"] = header("spool", cores=1, ports=3, mode=0, depth=16) + schedule(3, 3)
    # Rejected by create: each must come back with a message.
    s["bad_ring_size"] = header("privring", rx=12)
    s["bad_bx_too_small"] = header("rxbisect", cores=2, ax=64, bx=32)
    s["bad_pool_too_small"] = header("privring", cores=4, rx=128, pool=32)
    s["bad_share_degree"] = header("shring", cores=3, share=2)
    s["bad_batch"] = header("shring_list", cores=2, rx=16, flags=batch_flags(3))
    s["bad_arch"] = header(8)
    return s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "seeds")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    print(f"{len(seeds())} seeds in {out}")
    write_dir(os.path.join(out, "pcap"), pcap_seeds(), ".pcap")
    configs = simcfg_seeds(root)
    if configs is not None:
        write_dir(os.path.join(out, "simcfg"), configs, ".json")
    calibs = calib_seeds(root)
    write_dir(os.path.join(out, "calib"), calibs, ".json")
    if configs is not None:
        write_simcfg_dict(os.path.join(here, "simcfg.dict"), configs, calibs)
    profiles = profile_seeds(root)
    write_dir(os.path.join(out, "profile"), profiles, ".toml")
    write_profile_dict(os.path.join(here, "profile.dict"), profiles)


if __name__ == "__main__":
    main()
