"""net_rxbisect under dpdk-testpmd io forwarding, against testpmd directly on the wire.

Called by bench/pmd_bench.sh (which checks that the driver and dpdk-testpmd exist); see the
header of that script for what is measured and how. Writes one JSON object, rewritten after
every run ("complete": false until the last), and prints a table.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time

IFACES = ["privring", "small_privring", "shring", "shring_list", "dyn_shring", "rxbisect"]
# Several NIC threads: each owns a queue, a share group or an association set at least (the
# driver's "auto" share degree and association give each thread one); not dyn_shring.
SHARDABLE = ["privring", "small_privring", "shring", "shring_list", "rxbisect"]
med = statistics.median


def meminfo():
    out = {}
    try:
        for line in open("/proc/meminfo"):
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0])
    except (OSError, ValueError):
        pass
    return out


def page_kib(opts):
    """The pagesize= of a hugetlbfs mount's options in KiB ("2M", "1G"), or None (default size)."""
    for o in opts.split(","):
        if o.startswith("pagesize="):
            v = o[len("pagesize="):]
            scale = {"K": 1, "M": 1024, "G": 1024 * 1024}.get(v[-1:])
            return int(v[:-1]) * scale if scale else int(v) // 1024
    return None


def hugepages_usable(mi, mounts_path="/proc/mounts"):
    """1 GiB of free hugepages of the default size, and a hugetlbfs mount of that size this
    user can write: without the mount the EAL cannot map the free pages and testpmd fails."""
    kib = mi.get("Hugepagesize", 0)
    if mi.get("HugePages_Free", 0) * kib < 1024 * 1024:
        return False
    try:
        with open(mounts_path) as f:
            mounts = [ln.split() for ln in f]
    except OSError:
        return False
    return any(len(m) > 3 and m[2] == "hugetlbfs" and page_kib(m[3]) in (None, kib)
               and os.access(m[1].replace("\\040", " "), os.W_OK | os.X_OK) for m in mounts)


def cpu_hz():
    """The CPU's clock from /proc/cpuinfo ("cpu MHz"), or None."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("cpu MHz"):
                return float(line.split(":", 1)[1]) * 1e6
    except (OSError, ValueError):
        pass
    return None


def lcore_plan(cpus, q, nics=1):
    """lcore -> CPU for main (0), Q forwarding lcores (1..Q) and the NIC service lcores
    (Q+1 .. Q+nics).

    Q + nics busy threads (forwarding + NIC) each get a CPU of their own when there are
    enough; the main lcore (asleep on testpmd's command line) gets its own CPU only when one
    is left, else it shares the first forwarding lcore's. With fewer CPUs than busy lcores
    they wrap around (oversubscribed, said in the JSON)."""
    n = len(cpus)
    busy = q + nics
    if n >= busy + 1:
        main, rest = cpus[0], cpus[1:]
    else:
        main, rest = cpus[0], cpus
    plan = {0: main}
    for i in range(busy):
        plan[1 + i] = rest[i % len(rest)]
    return plan, n < busy


def nic_thread_counts(cpus, q, requested):
    """The NIC thread counts K > 1 to measure, and why each other one is not: rxbisect/nicK
    runs max(Q, K) forwarding lcores and K NIC lcores, all busy; on fewer CPUs they would
    time-slice, and their Mpps would measure the scheduler, not the driver."""
    kept, skipped = [], {}
    for k in requested:
        need = max(q, k) + k
        if need <= len(cpus):
            kept.append(k)
        else:
            skipped[f"nic{k}"] = (f"needs {need} CPUs ({max(q, k)} forwarding + {k} NIC "
                                  f"lcores, all busy); this process may use {len(cpus)}")
    return kept, skipped


def lcores_arg(plan):
    return ",".join(f"{lc}@{cpu}" for lc, cpu in sorted(plan.items()))


class Run:
    """One testpmd process driven through its interactive command line on stdin."""

    def __init__(self, cmd, log_path, limit_s):
        self.cmd = ["timeout", "-s", "KILL", str(int(limit_s))] + cmd
        self.buf = []
        self.lock = threading.Lock()
        self.log_path = log_path
        self.t_launch = time.monotonic()
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        # its process group (start_new_session): pmd_bench.sh kills it if we die first
        self.pgid_file = os.path.join(os.path.dirname(log_path), "running.pgid")
        open(self.pgid_file, "w").write(str(self.p.pid))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for chunk in iter(lambda: self.p.stdout.read1(65536), b""):
            with self.lock:
                self.buf.append(chunk.decode(errors="replace"))

    def text(self):
        with self.lock:
            return "".join(self.buf)

    def wait_for(self, needle, timeout_s):
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if needle in self.text():
                return True
            if self.p.poll() is not None:
                return needle in self.text()
            time.sleep(0.02)
        return False

    def send(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def kill(self):
        try:
            os.killpg(self.p.pid, 9)  # our own process group (start_new_session)
        except ProcessLookupError:
            pass

    def finish(self, timeout_s):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            rc = self.p.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = self.p.wait()
        os.unlink(self.pgid_file)
        self.reader.join(2)
        open(self.log_path, "w").write(self.text())
        return rc


def parse_stats(text):
    """Per 'show port stats all' block of port 0: (rx_pps, tx_pps, rx_packets, rx_missed)."""
    out = []
    for blk in re.findall(r"NIC statistics for port 0 +#+(.*?)#{20,}", text, re.S):
        def g(pat: str, blk: str = blk) -> int:
            return int(re.search(pat, blk).group(1))

        out.append({"rx_pps": g(r"Rx-pps:\s+(\d+)"), "tx_pps": g(r"Tx-pps:\s+(\d+)"),
                    "rx_packets": g(r"RX-packets:\s+(\d+)"), "rx_missed": g(r"RX-missed:\s+(\d+)")})
    return out


def parse_xstats(text):
    """Per 'show port xstats all' block of port 0: {name: value}."""
    out = []
    for blk in re.findall(r"NIC extended statistics for port 0 *\n(.*?)(?:\n\s*\n|\Z)", text,
                          re.S):
        out.append({k: int(v) for k, v in re.findall(r"^\s*(\w+):\s+(\d+)\s*$", blk, re.M)})
    return out


def other_testpmds():
    """Pids of dpdk-testpmd processes not started by this script (read only: never touched)."""
    out = subprocess.run(["pgrep", "-x", "dpdk-testpmd"], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def wait_quiet(limit_s):
    """Only one testpmd at a time on this machine: wait (up to limit_s) while another one, not
    ours, runs (another user's tests). Returns the seconds waited and whether it still runs."""
    t0 = time.monotonic()
    while other_testpmds() and time.monotonic() - t0 < limit_s:
        time.sleep(0.5)
    return round(time.monotonic() - t0, 1), bool(other_testpmds())


def one_run(a, name, eal, app, tag, log_dir):
    """Start testpmd, wait for its prompt, start forwarding, warm up, then a.windows windows of
    a.window_s seconds, each closed by 'show port stats all' (testpmd's own Rx-pps/Tx-pps over
    exactly that window, timed with its clock) and 'show port xstats all'."""
    budget = a.startup_s + a.warmup_s + a.windows * (a.window_s + 0.5) + a.exit_s + 5
    cmd = [a.testpmd] + eal + ["--"] + app
    waited, contended = wait_quiet(a.quiet_wait_s)
    load = round(os.getloadavg()[0], 2)
    r = Run(cmd, os.path.join(log_dir, f"{tag}.log"), budget)
    try:
        ok = r.wait_for("testpmd> ", a.startup_s)
        t0 = time.monotonic()
        startup = round(t0 - r.t_launch, 2)
        if ok:
            r.send("start")
            time.sleep(a.warmup_s)
            r.send("show port stats all")
            r.send("show port xstats all")
            for _ in range(a.windows):
                time.sleep(a.window_s)
                r.send("show port stats all")
                r.send("show port xstats all")
            r.send("stop")
            r.send("quit")
    except OSError:  # testpmd died (broken pipe): reported below
        ok = False
    except BaseException:
        r.kill()
        raise
    t1 = time.monotonic()
    rc = r.finish(a.exit_s)
    t_exit = round(time.monotonic() - t1, 2)
    text = r.text()
    st, xs = parse_stats(text), parse_xstats(text)
    res = {"ok": False, "rc": rc, "log": os.path.join(log_dir, f"{tag}.log"),
           "startup_s": startup, "windows_s": round(t1 - t0, 2), "exit_s": t_exit,
           "load_avg_before": load}
    if waited or contended:
        res.update(waited_for_other_testpmd_s=waited, other_testpmd_running=contended)
    if not ok or len(st) < a.windows + 1:
        res["error"] = (f"testpmd gave no prompt within {a.startup_s:g}s, or died" if not ok else
                        f"only {len(st)} stats blocks")
        res["tail"] = text[-1500:]
        return res
    win = st[1:a.windows + 1]
    res.update(ok=True, rx_pps=[w["rx_pps"] for w in win], tx_pps=[w["tx_pps"] for w in win])
    # forwarded packets per second: the median window (a vCPU stall hits one window only)
    res["mpps"] = med(res["tx_pps"]) / 1e6
    res["rx_mpps"] = med(res["rx_pps"]) / 1e6
    if len(xs) >= a.windows + 1 and "rx_q0_offered" in xs[0]:
        x0, x1 = xs[0], xs[a.windows]
        d = {k: x1[k] - x0.get(k, 0) for k in x1}
        span = a.windows * a.window_s  # approximate (shell timing), used for rates only
        q = lambda suf: sum(v for k, v in d.items()  # noqa: E731
                            if re.fullmatch(r"rx_q\d+_" + suf, k))
        offered = q("offered")
        drops = sum(v for k, v in d.items() if re.fullmatch(r"rx_q\d+_drops_\w+", k))
        causes = {}
        for k, v in d.items():
            m = re.fullmatch(r"rx_q\d+_drops_(\w+)", k)
            if m and v:
                causes[m.group(1)] = causes.get(m.group(1), 0) + v
        busy, idle = d.get("rx_nic_busy_polls", 0), d.get("rx_nic_idle_polls", 0)
        res["nic"] = {"offered_mpps": round(offered / span / 1e6, 3),
                      "drop_share": round(drops / offered, 4) if offered else None,
                      "drops_by_cause": causes,
                      "busy_poll_share": round(busy / (busy + idle), 4) if busy + idle else None,
                      "alloc_failures": q("alloc_failures"), **nic_cycles(d)}
    m = re.search(r"mempool (\S+): (\d+) of (\d+) mbufs not back at close", text)
    if m:
        res["mbufs_not_back_at_close"] = int(m.group(2))
    if re.search(r"all \d+ mbufs back", text):
        res["mbufs_not_back_at_close"] = 0
    m = re.search(r"census at stop: (.*)", text)
    if m:
        res["census_at_stop"] = m.group(1).strip()
    return res


# The steps of a NIC thread's wire burst, in order, as the driver's xstats name them
# (rx_nic_step_cycles_<step>, pmd/pmd.h enum pmd_nic_step); "other" is the rest of its passes.
NIC_STEPS = ["receive", "classify", "deliver", "free"]


def nic_cycles(d):
    """The NIC threads' TSC cycles per packet over their full passes (at least half a burst,
    not preempted), in all and by step, from the xstats' differences d; {} without them."""
    pkts = d.get("rx_nic_full_pass_packets", 0)
    if not pkts:
        return {}
    steps = {k: round(d[f"rx_nic_step_cycles_{k}"] / pkts, 1) for k in NIC_STEPS}
    total = round(d["rx_nic_full_pass_cycles"] / pkts, 1)
    steps["other"] = round(total - sum(steps.values()), 1)
    return {"cycles_per_packet": total, "step_cycles_per_packet": steps}


def write_json(path, doc):
    """Replace the file whole (a temporary file beside it, renamed): a benchmark killed while
    writing leaves the version before, never half a document."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--testpmd", required=True)
    ap.add_argument("--so", required=True)
    ap.add_argument("--so-base", help="a second build of the driver (say, before a change), "
                    "measured in the same invocation as <iface>@base")
    ap.add_argument("--out", required=True)
    ap.add_argument("--log-dir", required=True)
    ap.add_argument("--queues", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--window-s", type=float, default=1.0)
    ap.add_argument("--warmup-s", type=float, default=0.5)
    ap.add_argument("--startup-s", type=float, default=30.0)
    ap.add_argument("--exit-s", type=float, default=15.0)
    ap.add_argument("--ifaces", default=",".join(IFACES))
    ap.add_argument("--nic-threads", default="1",
                    help="comma-separated NIC thread counts; K > 1 runs the interfaces that "
                    "can share their NIC (all but dyn_shring) with K NIC threads and "
                    "max(queues, K) forwarding lcores and queues, as <iface>/nicK, beside "
                    "direct/nicK on as many forwarding lcores")
    ap.add_argument("--quiet-wait-s", type=float, default=60.0)
    ap.add_argument("--prefix", default=f"rxb-pmdb-{os.getpid()}")
    a = ap.parse_args()
    q = a.queues
    ifaces = [i for i in a.ifaces.split(",") if i]
    designs = ifaces + ([f"{i}@base" for i in ifaces] if a.so_base else [])
    cpus = sorted(os.sched_getaffinity(0))
    nic_counts, nic_skipped = nic_thread_counts(
        cpus, q, [int(k) for k in a.nic_threads.split(",") if k and int(k) > 1])
    for k, why in nic_skipped.items():
        print(f"pmd_bench: nic_threads={k[3:]} skipped: {why}", file=sys.stderr)
    designs += [f"{i}/nic{k}" for k in nic_counts for i in ifaces if i in SHARDABLE]
    hz = cpu_hz()

    plan, oversub = lcore_plan(cpus, q)
    # hugepages unlinked once mapped: they go back to the pool at exit, however testpmd exits
    mem = ["--huge-unlink"] if hugepages_usable(meminfo()) else ["--no-huge", "-m", "1024"]
    eal_common = ["--no-pci", "--file-prefix", a.prefix, "--log-level", "*:notice"]
    fwd_lcores = [plan[1 + i] for i in range(q)]
    nic_cpu = plan[q + 1]
    # Design: Q forwarding lcores + the NIC on service lcore Q+1.
    # (the first --log-level matching a type registered later wins: the driver's goes first;
    # at info it reports its census at stop and whether every mbuf came back at close)
    design_eal = (mem + ["--lcores", lcores_arg(plan), "-S", str(q + 1), "-d", a.so,
                         "--log-level", "pmd.net.rxbisect:info"] + eal_common)
    # Direct, same forwarding lcores (no NIC thread: its CPU stays idle).
    direct_plan = {k: v for k, v in plan.items() if k <= q}
    direct_eal = mem + ["--lcores", lcores_arg(direct_plan)] + eal_common
    # Direct, equal CPU budget: Q+1 forwarding lcores on the design's Q+1 busy CPUs.
    eq_eal = mem + ["--lcores", lcores_arg(plan)] + eal_common

    def app(n):
        return ["-i", "--forward-mode=io", "--port-topology=loop", "--no-flush-rx",
                f"--nb-cores={n}", f"--rxq={n}", f"--txq={n}"]

    configs = {"direct": (direct_eal + ["--vdev", "net_null0"], app(q)),
               "direct_equal_cpus": (eq_eal + ["--vdev", "net_null0"], app(q + 1))}
    budget = {"direct": q, "direct_equal_cpus": q + 1}
    for k in nic_counts:
        qk = max(q, k)
        pk, _ = lcore_plan(cpus, qk, k)
        configs[f"direct/nic{k}"] = (mem + ["--lcores", lcores_arg(
            {lc: c for lc, c in pk.items() if lc <= qk})] + eal_common + ["--vdev", "net_null0"],
            app(qk))
        budget[f"direct/nic{k}"] = qk
    for i in designs:
        name, k = i.split("/nic")[0], int(i.split("/nic")[1]) if "/nic" in i else 1
        eal = [a.so_base if x == a.so else x for x in design_eal] if "@" in i else design_eal
        vdev = f"net_rxbisect0,port=net_null0,iface={name.split('@')[0]}"
        qk = q
        if k > 1:
            qk = max(q, k)
            pk, _ = lcore_plan(cpus, qk, k)
            eal = (mem + ["--lcores", lcores_arg(pk), "-S",
                          ",".join(str(qk + 1 + t) for t in range(k)), "-d", a.so,
                          "--log-level", "pmd.net.rxbisect:info"] + eal_common)
            vdev += f",nic_threads={k}"
        configs[i] = (eal + ["--vdev", vdev], app(qk))
        budget[i] = qk + k
    # Order within a repetition: direct first and last, the equal-CPU baseline in the middle,
    # so a drift of the shared machine hits baselines and designs alike.
    order = ["direct"] + designs[:(len(designs) + 1) // 2] + ["direct_equal_cpus"] + \
        designs[(len(designs) + 1) // 2:] + [f"direct/nic{k}" for k in nic_counts] + ["direct"]

    runs = {k: [] for k in configs}

    def usable(k):
        """Runs that measured; those during which someone else's testpmd ran are left out
        when clean ones remain (they are in "runs", marked)."""
        ok = [r for r in runs[k] if r["ok"]]
        clean = [r for r in ok if not r.get("other_testpmd_running")]
        return clean or ok

    def summary(k, cpus_busy):
        ok = usable(k)
        if not ok:
            return None
        mpps = med([r["mpps"] for r in ok])
        return {"mpps": round(mpps, 3),
                "ns_per_packet": round(1e3 / mpps, 2) if mpps else None,
                # every CPU of the configuration's budget spends its cycles on the packets
                "cycles_per_packet": round(hz * cpus_busy / (mpps * 1e6), 1) if mpps and hz
                else None,
                "samples_mpps": [round(r["mpps"], 3) for r in ok],
                "left_out_contended": len([r for r in runs[k] if r["ok"]]) - len(ok)}

    def summarise():
        """The medians of the runs so far: direct, direct_equal_cpus and direct/nicK (None
        where nothing measured), the designs run so far and those that measured nothing."""
        base = {r["rep"]: [] for r in runs["direct"]}
        for r in usable("direct"):
            base[r["rep"]].append(r["mpps"])
        direct, direct_eq = summary("direct", q), summary("direct_equal_cpus", q + 1)
        direct_nic = {k: summary(f"direct/nic{k}", budget[f"direct/nic{k}"]) for k in nic_counts}
        eq_by_rep = {r["rep"]: r["mpps"] for r in usable("direct_equal_cpus")}
        results = {}
        failed = []
        for i in designs:
            if not runs[i]:
                continue  # not run yet: a document written part way
            s = summary(i, budget[i])
            if s is None:
                failed.append(i)
                results[i] = {"mpps": None, "ratio": None, "reps": a.reps,
                              "error": runs[i][0].get("error")}
                continue
            ok = usable(i)
            paired = [r["mpps"] / med(base[r["rep"]]) for r in ok if base.get(r["rep"])]
            paired_eq = [r["mpps"] / eq_by_rep[r["rep"]] for r in ok if r["rep"] in eq_by_rep]
            s.update({
                "ratio": round(s["mpps"] / direct["mpps"], 3) if direct else None,
                "ratio_paired": round(med(paired), 3) if paired else None,
                "ratio_vs_direct_equal_cpus": (round(s["mpps"] / direct_eq["mpps"], 3)
                                               if direct_eq else None),
                "ratio_vs_direct_equal_cpus_paired": round(med(paired_eq), 3) if paired_eq else None,
                "reps": len(ok),
                "rx_mpps": round(med([r["rx_mpps"] for r in ok]), 3),
            })
            if "/nic" in i:
                dk = direct_nic[int(i.split("/nic")[1])]
                s["ratio_vs_direct_same_fwd_lcores"] = (round(s["mpps"] / dk["mpps"], 3)
                                                        if dk else None)
            nic = [r["nic"] for r in ok if "nic" in r]
            if nic:
                threads = int(i.split("/nic")[1]) if "/nic" in i else 1
                offered = med([n["offered_mpps"] for n in nic])
                s["nic"] = {"offered_mpps": round(offered, 3),
                            # the NIC threads poll all the time: their time per frame they
                            # offered bounds what the software NIC costs per frame
                            "ns_per_offered_frame": (round(threads * 1e3 / offered, 1)
                                                     if offered else None),
                            "drop_share": med([n["drop_share"] or 0 for n in nic]),
                            "busy_poll_share": med([n["busy_poll_share"] or 0 for n in nic]),
                            "drops_by_cause": nic[len(nic) // 2]["drops_by_cause"],
                            "alloc_failures": max(n["alloc_failures"] for n in nic)}
                cyc = [n for n in nic if "cycles_per_packet" in n]
                if cyc:
                    s["nic"]["cycles_per_packet"] = med([n["cycles_per_packet"] for n in cyc])
                    s["nic"]["step_cycles_per_packet"] = {
                        k: med([n["step_cycles_per_packet"][k] for n in cyc])
                        for k in NIC_STEPS + ["other"]}
            nb = [r["mbufs_not_back_at_close"] for r in ok if "mbufs_not_back_at_close" in r]
            if nb:
                s["mbufs_not_back_at_close"] = max(nb)
            results[i] = s
        return direct, direct_eq, direct_nic, results, failed

    def cmdline(k):
        eal, ap_args = configs[k]
        return " ".join(["dpdk-testpmd"] + eal + ["--"] + ap_args)

    cpu = "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        dpdk = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "dpdk"],
                              capture_output=True, text=True).stdout.strip() or None
    except OSError:
        dpdk = None

    def document(elapsed, complete):
        """The JSON of the runs so far; complete once the last run is done."""
        direct, direct_eq, direct_nic, results, _ = summarise()
        return {
            "what": ("dpdk-testpmd io forwarding (one port, loop topology) through net_rxbisect "
                     "over net_null0, per interface, against the same testpmd directly on net_null0, "
                     "same invocation"),
            "goal_ratio": 0.5,
            "goal_met": {k: v["ratio"] >= 0.5 for k, v in results.items() if v.get("ratio")},
            "queues": q,
            "direct": dict(direct or {}, cpu_budget=(
                f"{q} forwarding lcore(s) on CPU(s) {fwd_lcores}; no NIC thread (net_null's Rx "
                "makes mbufs on the forwarding core)"), command=cmdline("direct")),
            "direct_equal_cpus": dict(direct_eq or {}, cpu_budget=(
                f"{q + 1} forwarding lcores ({q + 1} queues) on CPUs {fwd_lcores + [nic_cpu]}: the "
                "design's whole CPU budget"), command=cmdline("direct_equal_cpus")),
            "direct_nic_threads": {f"direct/nic{k}": dict(v or {}, command=cmdline(f"direct/nic{k}"))
                                   for k, v in direct_nic.items()},
            "nic_threads_skipped": nic_skipped,
            "interfaces": results,
            "design_cpu_budget": (f"{q} forwarding lcore(s) on CPU(s) {fwd_lcores} + the NIC "
                                  f"service lcore on CPU {nic_cpu}"),
            "design_command": cmdline(ifaces[0]).replace(f"iface={ifaces[0]}", "iface=<iface>"),
            "base_driver": a.so_base,
            "cpu_hz": hz,
            "method": {
                "measure": (f"testpmd interactive, commands on stdin: 'start', {a.warmup_s:g} s "
                            f"warm-up, then {a.windows} windows of {a.window_s:g} s, each ended by "
                            "'show port stats all'; a run's value "
                            "is the median window's Tx-pps of port 0 (testpmd's own 'throughput "
                            "since last show', timed by its clock), i.e. packets forwarded per "
                            "second"),
                "point": (f"median of {a.reps} runs (one testpmd process each; runs during which another "
                          "user's dpdk-testpmd ran are left out when clean ones remain); ratio = median design Mpps "
                          "/ median direct Mpps; ratio_paired = median over runs of design Mpps / "
                          "the direct runs of the same repetition"),
                "order": order,
                "nic": ("from xstats over the windows: offered_mpps (frames the NIC took from the "
                        "wire, window length from the script's clock), drop_share (dropped by the "
                        "design: no buffer/slot, the forwarding core is behind), busy_poll_share, "
                        "ns_per_offered_frame (NIC threads x 1e3 / offered_mpps: the NIC threads "
                        "spin, so this bounds the software NIC's cost per frame from above), "
                        "cycles_per_packet (TSC cycles of the NIC threads' passes that handled at "
                        "least half a burst, per packet: the NIC's own cost) and "
                        "step_cycles_per_packet (the same by step of a wire burst; other: the rest "
                        "of those passes); medians over the runs"),
            },
            "machine": {"cpu": cpu, "online_cpus": os.cpu_count(), "cpus_used": cpus,
                        "lcores": {str(k): v for k, v in plan.items()},
                        "oversubscribed": oversub,
                        "hugepages": "--no-huge" not in mem, "dpdk": dpdk, "kernel": platform.release(),
                        "load_avg_after": [round(x, 2) for x in os.getloadavg()]},
            "runs": {k: [{kk: vv for kk, vv in r.items() if kk not in ("tail", "log")} for r in v]
                     for k, v in runs.items()},
            "elapsed_s": round(elapsed, 1),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "bash bench/pmd_bench.sh",
            "complete": complete,
        }

    t_start = time.monotonic()
    for rep in range(1, a.reps + 1):
        for k in order:
            eal, ap_args = configs[k]
            print(f"pmd_bench: rep {rep}/{a.reps}: {k}", file=sys.stderr, flush=True)
            tag = k.replace("/", "-")  # names a log file
            res = one_run(a, k, eal, ap_args, f"{tag}.{rep}.{len(runs[k])}", a.log_dir)
            res["rep"] = rep
            if not res["ok"]:
                print(f"pmd_bench: {k} rep {rep} failed: {res['error']}\n{res.get('tail', '')}",
                      file=sys.stderr)
            runs[k].append(res)
            for d in ("/var/run/dpdk", os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"),
                                                    "dpdk")):
                subprocess.run(["rm", "-rf", os.path.join(d, a.prefix)], check=False)
            # after every run: an interrupted benchmark keeps what it measured
            write_json(a.out, document(time.monotonic() - t_start, complete=False))
    elapsed = time.monotonic() - t_start
    direct, direct_eq, direct_nic, results, failed = summarise()
    doc = document(elapsed, complete=True)
    write_json(a.out, doc)
    ok_ratios = [v["ratio"] for v in results.values() if v.get("ratio") is not None]

    f = lambda v, fmt: (fmt % v) if v is not None else "n/a"  # noqa: E731
    print(f"net_rxbisect vs testpmd directly on net_null0, io forwarding, {q} forwarding "
          f"lcore(s), medians of {a.reps} runs ({elapsed:.0f} s):")
    print(f"  direct ({q} fwd lcore{'s' if q > 1 else ''}):        "
          f"{f(direct and direct['mpps'], '%7.2f')} Mpps   {direct and direct['samples_mpps']}")
    print(f"  direct ({q + 1} fwd lcores, equal CPUs): {f(direct_eq and direct_eq['mpps'], '%7.2f')}"
          f" Mpps   {direct_eq and direct_eq['samples_mpps']}")
    for k, v in direct_nic.items():
        print(f"  direct ({max(q, k)} fwd lcores, for {k} NIC threads): "
              f"{f(v and v['mpps'], '%7.2f')} Mpps   {v and v['samples_mpps']}")
    print(f"  {'interface':15s} {'Mpps':>7s} {'ratio':>6s} {'paired':>7s} {'/eqCPU':>7s} "
          f"{'NIC offered':>11s} {'NIC ns':>6s} {'drops':>6s} {'ns/pkt':>7s} {'cyc/pkt':>7s}  samples")
    for i, s in results.items():
        n = s.get("nic", {})
        print(f"  {i:15s} {f(s['mpps'], '%7.2f')} {f(s['ratio'], '%5.2fx')} "
              f"{f(s.get('ratio_paired'), '%6.2fx')} {f(s.get('ratio_vs_direct_equal_cpus'), '%6.2fx')} "
              f"{f(n.get('offered_mpps'), '%9.2f M')} {f(n.get('ns_per_offered_frame'), '%6.1f')} "
              f"{f(n['drop_share'] * 100 if n.get('drop_share') is not None else None, '%5.1f%%')}"
              f" {f(s.get('ns_per_packet'), '%7.1f')} {f(s.get('cycles_per_packet'), '%7.0f')}"
              f"  {s.get('samples_mpps')}")
    print(f"  where the NIC threads' cycles per packet go (full passes, medians):\n"
          f"  {'interface':15s} {'total':>8s}" + "".join(f" {k:>8s}" for k in NIC_STEPS + ["other"]))
    for i, s in results.items():
        c = s.get("nic", {})
        if "cycles_per_packet" in c:
            print(f"  {i:15s} {c['cycles_per_packet']:8.1f}" + "".join(
                f" {c['step_cycles_per_packet'][k]:8.1f}" for k in NIC_STEPS + ["other"]))
    print(f"  goal ratio >= 0.5: "
          f"{'met' if ok_ratios and min(ok_ratios) >= 0.5 else 'NOT met'}"
          f"{' (met by ' + ', '.join(k for k, v in doc['goal_met'].items() if v) + ')' if any(doc['goal_met'].values()) and min(ok_ratios) < 0.5 else ''}")
    print(f"wrote {a.out}")
    return 1 if failed or not direct else 0


if __name__ == "__main__":
    sys.exit(main())
