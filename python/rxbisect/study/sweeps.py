r"""`rxb sweep`: one scenario over the cross product of key grids, times seeds.

    rxb sweep SCENARIO --grid arch.ax_size=64,128,256 --grid traffic.rate_gbps=50,100 \
              --seeds 3 --out results/ax --jobs 8            # local process pool
    rxb sweep SCENARIO --grid ... --cluster tcp://sched:8786 # an existing Dask scheduler

    rxbisect.sweep("reference", grid={"arch.ax_size": [64, 128]}, seeds=3, out="results/ax")

Three steps (docs/sweeps.md):

1. plan: every grid value is read and checked by the scenario schema (the messages of
   `--set`), then every point is loaded and resolved in this process, so a bad key, value
   or combination stops the sweep before anything runs. Each point gets its id, a hash of
   its resolved scenario (records.point_id).
2. run: the points not yet in DIR/sweep.jsonl (or stale there, below) go to a local
   process pool, or to a Dask distributed cluster; each is one engine run (engine.run, no
   progress bar). A worker receives the resolved scenario itself (absolute paths, no
   "auto"), rebuilds it, checks it hashes to the same id, runs the engine and returns the
   record.
3. record: this process alone writes DIR/sweep.jsonl, one line per point as it finishes
   (records.Store), then DIR/sweep.parquet from every record in the file. A point recorded
   there by another engine build, or with other hardware or cost profiles, is run again
   (provenance.stale; one line says how many and why).

Local workers run in process groups of their own: a Ctrl-C reaches only this process,
which then kills each worker together with its engine; if this process is killed, the
kernel tells each worker (PR_SET_PDEATHSIG), which kills its group. Either way the file
holds whole records of finished points only, and the same command finishes the sweep.
"""

import collections
import concurrent.futures as cf
import contextlib
import copy
import ctypes
import dataclasses
import itertools
import json
import logging
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ..engines import engine, provenance
from ..errors import EngineError, RxbError, ScenarioError, UsageError
from ..output import records
from ..vocab import scenario
from ..vocab.schema import parse_text, show, unknown

CONNECT_TIMEOUT_S = 10
LOST = "scheduler-connection-lost"  # distributed's reason for the futures of a lost scheduler
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@dataclass(frozen=True)
class Point:
    grid: dict[str, Any]  # key -> value as given (typed; "auto" stays "auto")
    seed: int  # the run.seed it runs with
    label: str  # "arch.ax_size=64 run.seed=2", for messages
    point_id: str
    task: dict  # what a worker receives (plain JSON-able data)
    inputs: dict  # provenance.inputs: the profiles' hashes a recorded point must match


# ---- plan -------------------------------------------------------------------------------

def split_values(text: str) -> list[str]:
    """V1,V2,... split at commas outside brackets, so list values survive:
    `system.stalled_cores=[],[0],[0,1]`."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += (ch == "[") - (ch == "]")
        cur += ch
    return out + [cur]


def parse_grid(text: str) -> tuple[str, list[str]]:
    """One `--grid KEY=V1,V2,...` into (KEY, [V1, V2, ...]); the values are checked later."""
    key, eq, values = text.partition("=")
    key = key.strip()
    if not eq or not key:
        raise UsageError(f"--grid {text!r}: expected KEY=V1,V2,... "
                         "(e.g. --grid arch.ax_size=64,128,256)")
    items = [v.strip() for v in split_values(values)]
    if not values.strip():
        raise UsageError(f"--grid {key}: no values after '='; expected {key}=V1,V2,...")
    if any(not v for v in items):
        raise UsageError(f"--grid {key}={values}: an empty value (two commas in a row, or one "
                         "at an end)")
    return key, items


def value_text(v: Any) -> str:
    """A value from the Python API as `--set` text (strings are taken as typed there)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(str(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def check_grid(grid: Mapping[str, Sequence[Any]], where: str = "--grid") \
        -> list[tuple[str, list[tuple[str, Any]]]]:
    """Every key and value through the scenario schema: [(key, [(text, value), ...])]."""
    names = [k.full for k in scenario.SCHEMA.keys()]
    out = []
    for key, values in grid.items():
        info = scenario.SCHEMA.info(key)
        if info is None:
            raise unknown("key", key, names, f"{where}: ")
        if not scenario.honours(key, "sim"):
            raise UsageError(f"{where} {key}: no effect in the simulator (a key only the "
                             "emulator honours)")
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            values = [values]
        values = list(values)
        if not values:
            raise UsageError(f"{where} {key}: no values")
        seen: dict[str, str] = {}
        parsed = []
        for v in values:
            text = value_text(v)
            value = parse_text(info, text, f"{where}: ")
            shown = show(value)
            if shown in seen:
                raise UsageError(f"{where} {key}: value {text} is given twice"
                                 + (f" (as {seen[shown]})" if seen[shown] != text else ""))
            seen[shown] = text
            parsed.append((text, value))
        out.append((key, parsed))
    return out


def plan(ref: str | None, grid: Mapping[str, Sequence[Any]] | None = None,
         seeds: int | None = None, sets: Sequence[str] = (), experiment: str = "sweep",
         where: str = "--grid", link: Mapping[str, str] | None = None,
         params: Mapping[str, Any] | None = None, search: Mapping[str, Any] | None = None) \
        -> list[Point]:
    """Every point of the sweep, checked and resolved; nothing runs.

    For the experiment catalogue (reproduce.py): `link` {key: grid key} gives a key the grid
    key's value at every point (privRing's Rx size follows rxBisect's Ax size, so both
    designs share a plot's x); `params` are added to every record's params (the design's
    label); `search` makes each point a no-drop rate search (ndr.py) instead of one run.
    """
    grid = dict(grid or {})
    link = dict(link or {})
    check_seeds(seeds)
    if seeds is not None:
        if "run.seed" in grid:
            raise UsageError("run.seed is both a grid key and set by --seeds; use one of them")
    axes = check_grid(grid, where)
    scenario.load(ref, sets)  # the scenario and --set alone: their own messages first
    keys = [k for k, _ in axes]
    seed_list: list[int | None] = list(range(1, seeds + 1)) if seeds else [None]
    points: list[Point] = []
    seen: dict[str, str] = {}
    for combo in itertools.product(*(vals for _, vals in axes)):
        for s in seed_list:
            own = [f"{k}={text}" for k, (text, _) in zip(keys, combo, strict=True)]
            own += [f"run.seed={s}"] if s is not None else []
            label = " ".join(own) or "(the scenario as it is)"
            texts = dict(zip(keys, (text for text, _ in combo), strict=True))
            own += [f"{dst}={texts[src]}" for dst, src in link.items()]
            try:
                res = scenario.load_resolved(ref, (*sets, *own))
            except ScenarioError as e:
                raise ScenarioError(f"grid point {label}: {e}") from None
            if search:
                from . import ndr
                ndr.check_point(res, search, f"{where} grid point {label}: [search] ")
            pid = records.point_id(res, search)
            if pid in seen:
                raise UsageError(f"grid points {seen[pid]} and {label} are the same scenario "
                                 "once resolved; drop one of the values")
            seen[pid] = label
            sections = {k: v for k, v in res.scenario.sections().items() if k != "emu"}
            resolved_grid = {k: sections[k.split(".")[0]][k.split(".", 1)[1]]
                             for k in (*keys, *link)}
            seed = res.scenario.run.seed
            given = {k: value for k, (_, value) in zip(keys, combo, strict=True)}
            # plain JSON data (tuples as lists): a fresh record equals one read back
            inputs = provenance.inputs(res.scenario, res.profile)
            task = json.loads(json.dumps(
                {"experiment": experiment, "scenario": ref, "point_id": pid, "grid": given,
                 "seed": seed, "resolved_grid": resolved_grid, "sections": sections,
                 "profile": res.profile.to_dict(), "inputs": inputs,
                 "params": dict(params or {}), "search": dict(search) if search else None,
                 "command": provenance.command_line()}))
            points.append(Point(task["grid"], seed, label, pid, task, inputs))
    return points


# ---- one point (in a worker) --------------------------------------------------------------

def run_point(task: dict) -> dict:
    """One engine run for a planned point; returns its record. Runs in a worker (a local
    process, or a Dask worker, which must import rxbisect and find rxb-sim)."""
    res = scenario.rebuild(task["sections"], "point: ")
    pid = records.point_id(res, task.get("search"))
    if pid != task["point_id"]:
        raise EngineError(f"point {task['point_id']}: this worker resolves the scenario "
                          "differently (a profile file that differs here?)")
    here = provenance.inputs(res.scenario, res.profile)
    differs = [why for key, why in provenance.INPUTS
               if key in task.get("inputs", {}) and here.get(key) != task["inputs"][key]]
    if differs:
        raise EngineError(f"point {pid}: this worker reads other files than the plan did "
                          f"({', '.join(differs)}: a trace or cost profile that differs here?)")
    extra: dict = {}
    if task.get("search"):
        from . import ndr  # a search is several runs of this point at other offered rates
        result, extra = ndr.run_point(res, task["search"], task.get("timeout"))
    else:
        result = engine.run(res, progress=False, timeout=task.get("timeout"))
    params = {**result.params, **task["resolved_grid"], "run.seed": task["seed"],
              **task.get("params", {})}
    return {"experiment": task["experiment"], "arch": result.params.get("arch.name"),
            "point_id": task["point_id"], "grid": task["grid"], "seed": task["seed"],
            "scenario": task["scenario"], "params": params,
            "metrics": {**result.metrics, **extra.get("metrics", {})},
            **({"search": extra["search"]} if "search" in extra else {}),
            "sim_packets": result.sim_packets + extra.get("sim_packets", 0),
            "sim_wall_s": result.sim_wall_s + extra.get("sim_wall_s", 0.0),
            "config": task["sections"], "profile": task["profile"],
            "provenance": provenance.facts(engine.find_engine(), res.scenario, res.profile,
                                           task.get("command"))}


# ---- local process pool -------------------------------------------------------------------

def _die_with_group(signum=None, frame=None) -> None:
    """Kill this worker and the engine it runs (never a group the worker does not lead)."""
    if os.getpgrp() == os.getpid():
        os.killpg(0, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def _worker_init(parent: int) -> None:
    """A pool worker: its own process group (a terminal's Ctrl-C reaches only the main
    process, which decides), and SIGTERM when the main process dies, which takes the
    worker's engine down with it."""
    os.setpgrp()
    signal.signal(signal.SIGTERM, _die_with_group)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: an orphaned worker finishes its one point and exits
    if os.getppid() != parent:  # the main process died before the line above
        _die_with_group()


def cpus() -> int:
    """The CPUs this process may run on (a container's or taskset's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


def _kill_groups(pids: Iterable[int]) -> None:
    for pid in pids:
        for kill in (os.killpg, os.kill):  # the group; the worker alone if it leads none
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _run_local(tasks: list[dict], jobs: int, started: Callable[[], None],
               done: Callable[[dict, dict | BaseException], None]) -> str | None:
    """Run on a process pool; `started()` once every worker is forked (a progress bar's
    thread must not exist at fork time), then `done(task, record or error)` per point, in
    this thread. Returns why it stopped early (a worker died), or None."""
    import multiprocessing as mp
    pool = cf.ProcessPoolExecutor(max_workers=min(jobs, len(tasks)),
                                  mp_context=mp.get_context("fork"),
                                  initializer=_worker_init, initargs=(os.getpid(),))
    workers: list[int] = []
    try:
        futs = {pool.submit(run_point, t): t for t in tasks}
        workers = list(getattr(pool, "_processes", None) or {})  # all forked by now
        started()
        for f in cf.as_completed(futs):
            err = f.exception()
            if isinstance(err, cf.process.BrokenProcessPool):
                _stop(pool, workers)
                return "a worker process died (killed, or out of memory)"
            if err is not None and not isinstance(err, RxbError):
                raise err  # a bug: keep its traceback
            done(futs[f], f.result() if err is None else err)
    except KeyboardInterrupt:
        # one Ctrl-C is enough: a second one (a user pressing twice, or a signal to the
        # whole group) must not cut the cleanup short with a traceback
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            _stop(pool, workers)
        finally:
            signal.signal(signal.SIGINT, previous)
        raise
    except BaseException:
        _stop(pool, workers)
        raise
    pool.shutdown(wait=True)
    return None


def _stop(pool: cf.ProcessPoolExecutor, workers: list[int]) -> None:
    """Kill the workers and let the pool's manager thread see it and end. Not waiting for
    that thread races with the interpreter's exit hook, which then writes to the wake-up
    pipe the thread is closing ("Exception ignored ... Bad file descriptor" at exit)."""
    _kill_groups(workers)
    pool.shutdown(wait=False, cancel_futures=True)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=10)


# ---- Dask distributed -------------------------------------------------------------------

# A Dask scheduler writes its handshake (an 8-byte length, then a few dozen bytes of frames
# naming its pickle protocol) the moment it accepts a connection; anything else is not one.
GREETING_S = CONNECT_TIMEOUT_S / 2  # then a silent server is asked in HTTP
GREETING_MAX = 1 << 16
GREETING_MARK = b"pickle-protocol"
HTTP_PROBE = b"HEAD / HTTP/1.0\r\n\r\n"
HTTP_HINT = "this is an HTTP server (the Dask dashboard?); the scheduler is usually port 8786"
# Loggers that print tracebacks of a lost connection at the user; the sweep says it in one line.
QUIET_LOGGERS = ("distributed", "asyncio", "tornado")


def host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of a TCP scheduler address; None for another scheme (tls://, ucx://,
    inproc://: left to dask)."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        return None
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit() or not host:
        raise UsageError(f"--cluster {address}: expected HOST:PORT or tcp://HOST:PORT of a "
                         "Dask scheduler (e.g. tcp://10.0.0.5:8786)")
    return host.strip("[]"), int(port)


def reachable(address: str) -> float:
    """Fail fast, with one clear line, unless a Dask scheduler greets us at a TCP address
    within CONNECT_TIMEOUT_S, connection included (dask itself retries until its timeout,
    and waits for ever on a server that accepts and never answers). Returns the seconds
    left of CONNECT_TIMEOUT_S."""
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    where = host_port(address)
    if where is not None:
        why = _probe(where, deadline)
        if why:
            raise UsageError(f"--cluster {address}: {why}")
    return max(1.0, deadline - time.monotonic())


def _probe(where: tuple[str, int], deadline: float) -> str | None:
    try:
        with socket.create_connection(where, timeout=deadline - time.monotonic()) as sock:
            return _greeting(sock, deadline)
    except OSError as e:
        return f"cannot reach a Dask scheduler there ({e.strerror or e})"


def _read(sock: socket.socket, n: int, until: float) -> tuple[bytes, bool]:
    """Up to n bytes, read until they are in, the peer closes, or `until` passes;
    (the bytes, whether the peer closed)."""
    data = b""
    while len(data) < n and (left := until - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            chunk = sock.recv(n - len(data))
        except TimeoutError:
            break
        if not chunk:
            return data, True
        data += chunk
    return data, False


def _greeting(sock: socket.socket, deadline: float) -> str | None:
    """None if what answers on `sock` greets like a Dask scheduler, else what it is."""
    head, closed = _read(sock, 8, min(deadline, time.monotonic() + GREETING_S))
    if not head and not closed:  # silent: a web server answers a request
        sock.sendall(HTTP_PROBE)
        head, closed = _read(sock, 8, deadline)
    if head.startswith(b"HTTP/"):
        return HTTP_HINT
    if not head:
        return ("it closed the connection without a word (not a Dask scheduler)" if closed
                else f"it accepted the connection but sent nothing in {CONNECT_TIMEOUT_S} s "
                "(a Dask scheduler greets at once)")
    return _handshake(sock, head, deadline)


def _handshake(sock: socket.socket, head: bytes, deadline: float) -> str | None:
    head += _read(sock, 8 - len(head), deadline)[0]
    size = struct.unpack("<Q", head)[0] if len(head) == 8 else 0
    body = _read(sock, size, deadline)[0] if 0 < size <= GREETING_MAX else b""
    if GREETING_MARK in body:
        return None
    return f"what answers there is not a Dask scheduler (it sent {(head + body)[:24]!r})"


@contextlib.contextmanager
def quiet():
    """While a sweep uses a cluster, a lost scheduler is said in one line (execute):
    distributed, asyncio and tornado would print tracebacks of the same event. Their
    levels are restored after, for a notebook's own use of dask."""
    with contextlib.suppress(ImportError):
        import distributed  # noqa: F401 (it sets its loggers' levels as it is imported)
    names = {*QUIET_LOGGERS, *(n for n in logging.Logger.manager.loggerDict
                               if n.startswith(tuple(f"{q}." for q in QUIET_LOGGERS)))}
    loggers = [logging.getLogger(n) for n in sorted(names)]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def _client(cluster: Any):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs the Python package 'distributed' "
                         "(pip install distributed)") from None
    if isinstance(cluster, Client):
        return cluster, False
    address = getattr(cluster, "scheduler_address", cluster)
    if not isinstance(address, str):
        raise UsageError(f"cluster {cluster!r}: expected a scheduler address, a "
                         "distributed.Client or a cluster object")
    left = reachable(address)
    try:
        return Client(address, timeout=left, set_as_default=False), True
    except Exception as e:  # noqa: BLE001 (dask raises OSError, TimeoutError, its own)
        raise UsageError(f"--cluster {address}: cannot connect to a Dask scheduler there "
                         f"({type(e).__name__}: {e})") from None


def _run_cluster(tasks: list[dict], client: Any, started: Callable[[], None],
                 done: Callable[[dict, dict | BaseException], None]) -> str | None:
    """Same work on a Dask distributed scheduler: one task per point (futures API). Returns
    why it stopped early (the scheduler was lost), or None."""
    from distributed import as_completed
    futs: dict = {}
    try:
        futs = {client.submit(run_point, t, pure=False): t for t in tasks}
        started()
        for f in as_completed(futs, loop=client.loop):  # this client, not a default one
            try:
                result = f.result()
            except Exception as e:  # noqa: BLE001 (an engine failure, or KilledWorker)
                result = e
            if isinstance(result, Exception) and lost(result):
                return ("lost the connection to the Dask scheduler mid-sweep (it stopped, "
                        "or the network failed)")
            done(futs[f], result)
    except BaseException:
        client.cancel(list(futs))
        raise
    return None


def lost(err: BaseException) -> bool:
    """Whether a task's error is the connection to the scheduler, not the point."""
    from distributed.comm import CommClosedError
    return getattr(err, "reason", None) == LOST or isinstance(err, CommClosedError)


def _build_here() -> str | None:
    """The build id of the engine this process would run; None without one."""
    try:
        return provenance.engine_build(engine.find_engine())
    except (EngineError, OSError):
        return None


def expected_build(client: Any) -> str | None:
    """The engine build this sweep's points run with: the local engine's, or the one all
    the cluster's workers have (None, not compared, when they differ or have none)."""
    if client is None:
        return _build_here()
    builds = set(client.run(_build_here).values())
    return builds.pop() if len(builds) == 1 else None


def reusable(points: list[Point], have: Mapping[str, dict], build: str | None,
             say: Callable[[str], None]) -> dict[str, dict]:
    """The recorded points this run may reuse: not stale (provenance.stale, the reason
    given first) and whole (records.problems: a damaged record would break the table); one
    line says how many recorded points run again, and why."""
    why = {p.point_id: provenance.stale(have[p.point_id], {"engine_build": build, **p.inputs})
           or ("its record is damaged" if records.problems(have[p.point_id]) else None)
           for p in points if p.point_id in have}
    reasons = collections.Counter(w for w in why.values() if w)
    if reasons:
        say(f"rxb: {rerun_text(reasons)}")
    return {pid: have[pid] for pid, w in why.items() if w is None}


def rerun_text(reasons: Mapping[str, int]) -> str:
    """"3 points re-run: engine changed", the count per reason when there are several."""
    n = sum(reasons.values())
    whys = [next(iter(reasons))] if len(reasons) == 1 else \
        [f"{why} ({k})" for why, k in reasons.items()]
    return f"{n} point{'s' if n != 1 else ''} re-run: {', '.join(whys)}"


# ---- the sweep ----------------------------------------------------------------------------

@dataclass
class Outcome:
    points: list[Point]
    records: list[dict]  # one per point, in plan order (a failed point raises instead)
    ran: int  # points run now
    skipped: int  # points found in the file
    file: Path | None  # DIR/STEM.jsonl
    table: Path | None  # DIR/STEM.parquet, if written


# Each seed runs every point again, and each job is a process of its own: beyond these the
# request is a typing slip (it would plan for ever or fork without end), not a plan.
MAX_SEEDS = 1000
MAX_JOBS = 1024


def check_seeds(seeds: int | None) -> None:
    if seeds is not None and (isinstance(seeds, bool) or not isinstance(seeds, int)
                              or not 1 <= seeds <= MAX_SEEDS):
        raise UsageError(f"--seeds {seeds}: must be an integer in [1, {MAX_SEEDS}] "
                         "(each seed runs every point once more)")


def check_jobs(jobs: int | None, cluster: Any) -> None:
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int)
                             or not 1 <= jobs <= MAX_JOBS):
        raise UsageError(f"--jobs {jobs}: must be an integer in [1, {MAX_JOBS}] (a process "
                         f"each; this process may use {cpus()} CPUs)")
    if jobs is not None and cluster is not None:
        raise UsageError("--jobs sets the local pool; a cluster runs as many points at once "
                         "as its workers have threads")


def execute(points: list[Point], out: str | os.PathLike | None = None, cluster: Any = None,
            jobs: int | None = None, progress: bool | None = None,
            warn: Callable[[str], None] | None = None, stem: str = records.STEM,
            finish: Callable[[dict], dict] | None = None, desc: str = "sweep",
            timeout: float | None = None) -> Outcome:
    """Run the planned points not yet in DIR/STEM.jsonl, or recorded there by another engine
    or with other inputs (reusable); raise EngineError if some failed (the others are
    recorded), KeyboardInterrupt after cleaning up on Ctrl-C.

    finish(record) -> record runs in this process on each new record before it is written
    (the catalogue's Python-side derivations); desc names the progress bar; timeout: seconds
    a point's engine may run (each trial of a search), after which the point fails as an
    engine error does."""
    check_jobs(jobs, cluster)
    say = warn or (lambda m: tqdm.write(m, file=sys.stderr))
    with contextlib.ExitStack() as stack:
        if cluster is not None:
            stack.enter_context(quiet())
        client = _open_client(cluster, stack)
        store = stack.enter_context(records.Store(out, say, stem)) if out is not None else None
        fresh = reusable(points, store.records, expected_build(client), say) \
            if store and store.records else {}
        if store:
            fresh = _refreshed(points, fresh, store, finish, say)
        if timeout is not None:
            points = [dataclasses.replace(p, task={**p.task, "timeout": timeout})
                      for p in points]
        return _execute(points, fresh, store, client, jobs, progress, say, stem, finish, desc)


def _refreshed(points: list[Point], fresh: dict[str, dict], store: records.Store,
               finish: Callable[[dict], dict] | None, say: Callable[[str], None]) \
        -> dict[str, dict]:
    """The reused records with what this process adds to a record now: the plan's params (a
    design's label) and finish (the derivations); those that change are appended again (the
    last record of a point wins), so an edited label or derive is not lost to the resume."""
    by_id = {p.point_id: p for p in points}
    out, changed = {}, 0
    for pid, rec in fresh.items():
        new = copy.deepcopy(rec)
        new["params"] = {**new.get("params", {}), **by_id[pid].task.get("params", {})}
        new = finish(new) if finish else new
        if new != rec:
            store.append(new)
            changed += 1
        out[pid] = new
    if changed:
        say(f"rxb: {changed} recorded point{'s' if changed != 1 else ''} given the experiment's "
            "labels and derived metrics anew (no run)")
    return out


def _open_client(cluster: Any, stack: contextlib.ExitStack):
    """The Dask client of `cluster` (None for the local pool), closed with `stack` when
    this sweep opened it."""
    if cluster is None:
        return None
    client, own = _client(cluster)
    if own:
        stack.callback(client.close)
    return client


def _execute(points: list[Point], fresh: dict[str, dict], store: records.Store | None,
             client: Any, jobs: int | None, progress: bool | None,
             say: Callable[[str], None], stem: str, finish: Callable[[dict], dict] | None,
             desc: str) -> Outcome:
    pending = [p for p in points if p.point_id not in fresh]
    skipped = len(points) - len(pending)
    new: dict[str, dict] = {}
    failures: list[tuple[str, str]] = []
    by_id = {p.point_id: p for p in points}
    bar = None

    def started() -> None:
        nonlocal bar
        bar = tqdm(total=len(points), initial=skipped, desc=desc, unit="point",
                   disable=None if progress is None else not progress, file=sys.stderr,
                   dynamic_ncols=True)

    def done(task: dict, result: dict | BaseException) -> None:
        if isinstance(result, dict):
            rec = finish(result) if finish else result
            if store:
                store.append(rec)
            new[task["point_id"]] = rec
        else:
            label = by_id[task["point_id"]].label
            failures.append((label, str(result) if isinstance(result, RxbError)
                             else f"{type(result).__name__}: {result}"))
            tqdm.write(f"rxb: warning: point {label} failed: {failures[-1][1]}",
                       file=sys.stderr)
        assert bar is not None, "the runners call started() before the first done()"
        bar.update(1)

    stopped = None
    try:
        if pending:
            tasks = [p.task for p in pending]
            if client is not None:
                stopped = _run_cluster(tasks, client, started, done)
            else:
                stopped = _run_local(tasks, jobs or cpus(), started, done)
    except KeyboardInterrupt:
        if bar:
            bar.close()
        if store:
            say(f"rxb: {skipped + len(new)} of {len(points)} points are in {store.path}; "
                "run the same command again to finish the sweep")
        raise
    finally:
        if bar:
            bar.close()
    table = _table(store, stem, say)
    if stopped or failures:
        why = stopped or f"{len(failures)} of {len(pending)} points failed; first: " \
            f"{failures[0][0]}: {failures[0][1]}"
        raise EngineError(f"{why}; {skipped + len(new)} of {len(points)} points are "
                          + (f"recorded in {store.path}; run the same command again to run "
                             "the others" if store else
                             "done; with --out DIR a rerun would keep them and run the others"))
    recs = [fresh.get(p.point_id) or new[p.point_id] for p in points]
    return Outcome(points, recs, len(new), skipped, store.path if store else None, table)


def _table(store: records.Store | None, stem: str, say: Callable[[str], None]) -> Path | None:
    """DIR/STEM.parquet from every record in the file; a failure is a warning (the JSON
    lines are intact)."""
    if not store:
        return None
    try:
        return records.write_table(store.records.values(), store.folder, stem)
    except Exception as e:  # noqa: BLE001 (pandas/pyarrow)
        say(f"rxb: warning: could not write {store.folder / (stem + '.parquet')} "
            f"({type(e).__name__}: {e})")
        return None


def sweep(scenario_ref: str | None = None, grid: Mapping[str, Sequence[Any]] | None = None,
          seeds: int | None = None, out: str | os.PathLike | None = None, cluster: Any = None,
          jobs: int | None = None, sets: Sequence[str] = (), experiment: str = "sweep",
          progress: bool | None = None):
    """Run a scenario over the cross product of `grid` ({key: [values]}) times `seeds`
    seeds (run.seed = 1..seeds; None: the scenario's seed) and return a pandas DataFrame,
    one row per point, params and metrics flattened with dotted column names
    (`params.arch.ax_size`, `metrics.throughput_gbps`; records.flatten).

    scenario_ref: a scenario file or built-in name (None: the defaults, the reference
    setup); sets: `section.key=value` overrides applied before the grid. out: a folder for
    sweep.jsonl and sweep.parquet; points already there are not run again (None: nothing
    is written, everything runs). cluster: a Dask scheduler address, distributed.Client or
    cluster object (None: a local process pool of `jobs` processes, default all CPUs).
    experiment: the record's "experiment" field (a catalogue ID).

    >>> df = sweep(grid={"arch.ax_size": [64, 128]}, sets=["run.duration_ms=0.2",
    ...            "run.warmup_ms=0.05"], jobs=2, progress=False)
    >>> df["params.arch.ax_size"].tolist(), df.attrs["grid"]
    ([64, 128], ['params.arch.ax_size'])
    """
    if grid is not None and not isinstance(grid, Mapping):  # a list of pairs failed later
        raise UsageError(f"grid: expected a mapping {{key: [values]}}, got "
                         f"{type(grid).__name__}")
    points = plan(scenario_ref, grid, seeds, sets, experiment, where="grid")
    refuse_idle_grid(grid or {}, points, "grid")
    for line in idle_in_part(grid or {}, points, "grid"):
        print(f"rxb: warning: {line}", file=sys.stderr)
    outcome = execute(points, out, cluster, jobs, progress)
    df = records.frame(outcome.records)
    df.attrs["grid"] = [f"params.{k}" for k in (grid or {})]
    return df

def _no_effect_at(key: str, points: Sequence[Point]) -> list[str | None]:
    """scenario.no_effect of `key` at each point: its warning where it changes nothing."""
    return [scenario.no_effect(key, p.task["sections"]["arch"]["name"],
                               p.task["sections"]["traffic"]["pattern"],
                               nf=p.task["sections"]["workload"]["nf"]) for p in points]


def idle_everywhere(key: str, points: Sequence[Point]) -> str | None:
    """The warning for `key` at the first point when it changes nothing at any point."""
    said = _no_effect_at(key, points)
    return said[0] if all(said) else None


def idle_in_part(grid: Mapping[str, Any], points: Sequence[Point], where: str) -> list[str]:
    """A warning per grid key that changes nothing at some points only (arch.ax_size in a
    grid of designs): there its values run the same scenario again, under other point ids,
    and a plot draws the repeats as a flat, measured-looking line."""
    out = []
    for key in grid:
        said = _no_effect_at(key, points)
        idle = [w for w in said if w]
        if idle and len(idle) < len(said):
            whys = "; ".join(dict.fromkeys(idle))
            out.append(f"{where} {key}: {whys}: at those {len(idle)} of the {len(said)} "
                       "points its values repeat the same run")
    return out


def refuse_idle_grid(grid: Mapping[str, Any], points: Sequence[Point], where: str) -> None:
    """Refuse grid keys that change nothing at any point: their values would be the same run
    again. (Not in plan(): the catalogue sweeps one design at a time through linked keys.)"""
    idle = {k: w for k in grid if (w := idle_everywhere(k, points))}
    if idle:
        every = "every point would be" if len(idle) == len(grid) else \
            "points that differ only in it would be"
        key, why = next(iter(idle.items()))
        raise UsageError(f"{where} {key}: {why}: {every} the same run; allowed: keys "
                         "that apply to the design, pattern and network function swept")


def grid_from_args(texts: Sequence[str]) -> dict[str, list[str]]:
    """The `--grid KEY=V1,V2,...` options as {KEY: [texts]}; each key at most once."""
    grid: dict[str, list[str]] = {}
    for text in texts:
        key, values = parse_grid(text)
        if key in grid:
            raise UsageError(f"--grid {key} is given twice; list all its values in one --grid")
        grid[key] = values
    return grid


def _cell(v: Any) -> str:
    return v if isinstance(v, str) else show(v)


def table(outcome: Outcome) -> str:
    """The points of a sweep, one row each: grid values, seed, headline metrics."""
    from ..output import text_report
    keys = list(outcome.points[0].grid) if outcome.points else []
    rows = []
    for p, r in zip(outcome.points, outcome.records, strict=True):
        m = r["metrics"]
        rows.append((*(_cell(p.grid[k]) for k in keys), p.seed,
                     f"{m['throughput_gbps']:.2f}", f"{100 * m['drop_rate']:.2f}",
                     text_report.percent(text_report.in_flight_share(m), 2),
                     text_report.num(m["latency_us_p99"], 2), f"{m['mem_bw_gibps']:.2f}",
                     text_report.pct(m["ddio_hit_rate"], 1), p.point_id))
    text = text_report.table((*keys, "seed", "Gbps", "drop %", "in flight %", "p99 us", "mem GiB/s",
                         "DDIO hit", "point"),
                        rows, (*(False,) * len(keys), *(True,) * 7, False))
    n = len(outcome.points)
    text += f"\n\n{n} point{'' if n == 1 else 's'}: {outcome.ran} run now, {outcome.skipped} " \
        "already recorded"
    if outcome.file:
        text += f"\nrecords: {outcome.file}"
        if outcome.table:
            text += f"\ntable:   {outcome.table}"
    return text + "\n"
