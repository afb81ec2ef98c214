"""Result records on disk: the JSON-lines file a sweep appends to, and tables made from it.

A record is the object of docs/evaluation.md §4, one per simulated point:

    {"experiment", "arch", "point_id", "grid", "seed", "scenario",
     "params": {...}, "metrics": {...}, "sim_packets", "sim_wall_s", "config": {...},
     "provenance": {...}}

(docs/sweeps.md describes every key). `Store` owns DIR/sweep.jsonl for one run:

- it is locked (a POSIX lock, which dies with the process holding it and is not inherited
  by forked workers), so two sweeps never append to one file;
- a half-written last line, left when a run was killed in the middle of a write, is cut
  off before anything is appended after it;
- each record is one write(2) of one complete line, with SIGINT/SIGTERM/SIGHUP held back
  for its duration and fdatasync(2) after it, so an interrupted run leaves whole lines only.

The point id (`point_id`) is what makes a sweep resumable: a stable hash of the resolved
scenario exactly as the engine receives it, so a point already in the file is skipped.
"""

import contextlib
import fcntl
import json
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..engines import engine, provenance
from ..engines.provenance import digest
from ..errors import RxbError, UsageError
from ..vocab.scenario import METRICS, Resolved

STEM = "sweep"  # `rxb sweep` writes DIR/sweep.jsonl; `rxb repro ID` writes DIR/ID.jsonl
FILE = f"{STEM}.jsonl"
TABLE = f"{STEM}.parquet"
# Top-level record keys that become DataFrame columns as they are; those of FLATTENED are
# flattened under their own prefix; "grid", "config" and "profile" stay in the JSON lines
# only (params already holds every grid key's resolved value).
COLUMNS = ("experiment", "arch", "point_id", "seed", "scenario", "sim_packets", "sim_wall_s")
FLATTENED = ("params", "metrics", "provenance")
_HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_OPEN: set[str] = set()  # files a Store of this process has open
_OPEN_LOCK = threading.Lock()


def identity(res: Resolved) -> dict:
    """What a point's id is a hash of: the engine's config (engine.build_config) without
    the free text and the profile's file location, which do not change what is simulated."""
    cfg = engine.build_config(res)
    cfg.pop("description", None)
    cfg["profile"] = provenance.profile_values(cfg["profile"])
    return cfg


def point_id(res: Resolved, search: Mapping[str, Any] | None = None) -> str:
    """Stable hash of a resolved scenario: 16 hex digits of SHA-256 over canonical JSON. A
    no-drop search (ndr.py) from it is another point than one run of it."""
    pid = digest(identity(res))
    return digest({"point": pid, "search": dict(search)}) if search else pid


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr)


class Store:
    """DIR/STEM.jsonl, open for one run: `records` holds what the file had (by point id,
    last one wins); `append` adds one record durably."""

    def __init__(self, folder: str | os.PathLike, warn: Callable[[str], None] = _stderr,
                 stem: str = STEM):
        if isinstance(folder, str) and folder.strip() == "":
            # Path("") is the current folder: out=os.environ.get("OUT", "") wrote there
            raise UsageError(f"--out {folder!r}: empty; allowed: a folder, new or one a sweep "
                             "wrote")
        self.folder = Path(folder)
        self.path = self.folder / f"{stem}.jsonl"
        if self.folder.exists() and not self.folder.is_dir():
            raise UsageError(f"--out {folder}: a file, not a folder; allowed: a folder, new or "
                             "one a sweep wrote")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--out {folder}: cannot create the folder "
                             f"({e.strerror or e})") from None
        # A POSIX lock excludes other processes (and, unlike flock, is not held on by the
        # workers a sweep forks). It is dropped when this process closes *any* descriptor of
        # the file, so a second Store of this process is turned away by _OPEN before it opens
        # one.
        self._fd = -1
        self._key = os.path.realpath(self.path)
        with _OPEN_LOCK:
            if self._key in _OPEN:
                raise self._busy()
            # a run that held the lock may have removed its empty file (close) after this one
            # opened it: the lock is then on a file no one will read again; open anew
            while self._fd < 0:
                self._fd = self._open_locked(folder)
            _OPEN.add(self._key)
        try:
            self.records = self._read(warn)
        except BaseException:
            self.close()
            raise

    def _open_locked(self, folder: str | os.PathLike) -> int:
        """The records file opened and locked; -1 when the file it opened was removed
        meanwhile (try again)."""
        self._created = not self.path.exists()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as e:
            raise UsageError(f"--out {folder}: cannot write {self.path} "
                             f"({e.strerror or e})") from None
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise self._busy() from None
        try:
            same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            return -1
        return fd

    def _busy(self) -> UsageError:
        return UsageError(f"{self.path} is being written by another `rxb sweep` or `rxb repro`; "
                          "wait for it to finish, or use another --out")

    def _read(self, warn: Callable[[str], None]) -> dict[str, dict]:
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size, 0) if size else b""
        end = data.rfind(b"\n") + 1  # everything after the last newline is a cut-off write
        lines = data[:end].split(b"\n")[:-1]
        records: dict[str, dict] = {}
        good = 0  # bytes of whole, valid lines
        for i, line in enumerate(lines):
            # a record is written with its newline in one go: a whole line that is no
            # record was edited in, even the last one, and is the user's to mend
            rec = _parse(line)
            if rec is None:
                raise UsageError(f"{self.path} line {i + 1} is not a sweep record; the "
                                 "file was edited or not written by `rxb sweep`: fix or "
                                 "remove that line, or use another --out")
            records[rec["point_id"]] = rec
            good += len(line) + 1
        if good < len(data):
            warn(f"rxb: warning: {self.path}: dropped a half-written last line "
                 f"({len(data) - good} bytes) left by an interrupted run")
            os.ftruncate(self._fd, good)
        return records

    def append(self, record: dict) -> None:
        """Write one record as one line, durably; never half of it on a Ctrl-C."""
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        end = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            os.fdatasync(self._fd)
        except OSError as e:
            self._cut_back(end)
            raise RxbError(f"cannot append to {self.path} ({e.strerror or e}); the records "
                           "written so far are intact") from None
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        self.records[record["point_id"]] = record

    def _cut_back(self, end: int) -> None:
        """Remove what a failed append wrote past `end` (a full disk takes part of a line),
        so the file holds whole records only; best effort, as the disk may refuse this too."""
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, end)

    def close(self) -> None:
        if self._fd >= 0:
            self._remove_if_unused()
            os.close(self._fd)  # releases the lock
            self._fd = -1
            with _OPEN_LOCK:
                _OPEN.discard(self._key)

    def _remove_if_unused(self) -> None:
        """Remove the file this Store created when no record went into it (a check before a
        plan, a run whose every point failed): an empty ID.jsonl is no result, and reports
        would have to tell it from one. Done under the lock, so no other run is writing it."""
        if self._created and os.fstat(self._fd).st_size == 0:
            with contextlib.suppress(OSError):
                self.path.unlink()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _parse(line: bytes, need_id: bool = True) -> dict | None:
    try:
        rec = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("metrics"), dict):
        return None
    if need_id and not isinstance(rec.get("point_id"), str):
        return None
    return rec


def read(folder: str | os.PathLike, stem: str = STEM) -> list[dict]:
    """The current record of every point of DIR/STEM.jsonl (read_file)."""
    return read_file(Path(folder) / f"{stem}.jsonl")


def read_file(path: Path, strict: bool = False) -> list[dict]:
    """The current record of every point of a records file, in the order points first
    appear: a point re-run (stale provenance, a failed run) has its later record supersede
    the earlier one, as Store does. A cut-off last line is ignored, not repaired: reading
    needs no lock. A record without a point id (written by hand) counts as its own point.
    Another line that is not a record is skipped, or with `strict` an error naming it (a
    report must not silently leave points out), as is, with `strict`, a record whose metrics
    are not numbers where numbers belong (a plot would leave the point out; a hand-written
    record may give only some metrics). Not while this process has a Store open on the file:
    closing any descriptor of a file drops the process's POSIX lock on it."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path} ({e.strerror or e})") from None
    latest: dict[str | int, dict] = {}
    for i, line in enumerate(data[:data.rfind(b"\n") + 1].splitlines()):
        rec = _parse(line, need_id=False)
        if rec is None and strict and line.strip():
            raise UsageError(f"{path} line {i + 1}: not a result record (a JSON object with "
                             "a \"metrics\" object)")
        if rec is not None and strict and (bad := metric_problems(rec["metrics"], False)):
            raise UsageError(f"{path} line {i + 1}: {'; '.join(bad)}")
        if rec is not None:
            latest[rec.get("point_id") or i] = rec
    return list(latest.values())


def flatten(record: dict) -> dict[str, Any]:
    """One table row: COLUMNS as they are, then params, metrics and provenance with dotted
    names (`params.arch.ax_size`, `metrics.drops_by_cause.no_ax_buf`,
    `provenance.engine_build`); lists (per-core and per-ring breakdowns, time series) are
    kept as JSON text."""
    row = {k: record.get(k) for k in COLUMNS}
    for top in FLATTENED:
        _walk(top, record.get(top) or {}, row)
    return row


def _walk(prefix: str, obj: dict, row: dict) -> None:
    for k, v in obj.items():
        name = f"{prefix}.{k}"
        if isinstance(v, dict):
            _walk(name, v, row)
        elif isinstance(v, list):
            row[name] = json.dumps(v, separators=(",", ":"))
        else:
            row[name] = v


def frame(records: Iterable[dict]):
    """A pandas DataFrame, one row per record (see flatten)."""
    import pandas as pd
    return pd.DataFrame([flatten(r) for r in records])


def check_writable(path: Path, option: str) -> None:
    """Make sure file `path` can be written (its folder created) before the work whose result
    it holds: a measurement of minutes is otherwise lost to a typo in the name."""
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a folder; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
        if path.exists() and not os.access(path, os.W_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot write it ({e.strerror or e})") from None


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary name beside `path` to write to, renamed over `path` when the block ends
    and removed when it fails: a reader never meets a half-written file, and a write that
    fails (a full disk) leaves the old file, not an empty one a later run takes as done."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_table(records: Iterable[dict], folder: str | os.PathLike, stem: str = STEM) -> Path:
    """DIR/STEM.parquet from the records, written beside and renamed over the old one."""
    path = Path(folder) / f"{stem}.parquet"
    with replacing(path) as tmp:
        frame(records).to_parquet(tmp, index=False)
    return path


# ---- schema -------------------------------------------------------------------------------

# The metrics docs/evaluation.md §4 names for every record (the engine may add more): those
# result_metrics.toml marks `record`, with their kinds from the same table.
_SPEC = {**engine.REQUIRED_METRICS, **engine.OPTIONAL_METRICS}
REQUIRED_METRICS = tuple(name for name, m in METRICS.items() if m.get("record"))
# Metrics a record may lack (older records, emulator records), checked for their type when
# present; like engine.OPTIONAL_METRICS.
OPTIONAL_METRICS = {"anatomy": dict}
_TOP: dict[str, type | tuple[type, ...]] = {"experiment": str, "arch": str, "point_id": str, "seed": int, "params": dict,
        "metrics": dict, "sim_packets": int, "sim_wall_s": (int, float), "config": dict}


def problems(record: Any) -> list[str]:
    """What makes `record` not a record of docs/evaluation.md §4 as this package writes it (empty
    when it is one), its provenance included. Checks shape and types, never values: the
    numbers are the model's."""
    if not isinstance(record, dict):
        return [f"not an object but {type(record).__name__}"]
    out = []
    for key, kind in _TOP.items():
        v = record.get(key)
        if not isinstance(v, kind) or isinstance(v, bool):
            out.append(f"{key}: expected {getattr(kind, '__name__', 'number')}, got {v!r:.40}")
    if out:
        return out
    if len(record["point_id"]) != 16 or any(c not in "0123456789abcdef"
                                            for c in record["point_id"]):
        out.append(f"point_id {record['point_id']!r}: not 16 hex digits")
    params, m = record["params"], record["metrics"]
    if params.get("arch.name") != record["arch"]:
        out.append(f"params.arch.name {params.get('arch.name')!r} differs from arch")
    if params.get("run.seed") != record["seed"]:
        out.append(f"params.run.seed {params.get('run.seed')!r} differs from seed")
    return out + metric_problems(m) + provenance.problems(record.get("provenance"))


def metric_problems(m: Mapping[str, Any], complete: bool = True) -> list[str]:
    """What in a record's metrics is not of its kind: a required metric not a number (null
    only where the metric may have no value), or, when the record must be `complete`,
    missing."""
    out = []
    for name in REQUIRED_METRICS:
        v = m.get(name, ...)
        if v is ... and complete:
            out.append(f"metrics.{name}: missing")
        elif v is ...:
            continue
        elif isinstance(_SPEC[name], dict):
            kinds = _SPEC[name]
            if not isinstance(v, dict) or not all(_number(x) or (x is None and kinds.get(
                    k, "").endswith("?")) for k, x in v.items()):
                out.append(f"metrics.{name}: expected an object of numbers, got {v!r:.60}")
        elif not (_number(v) or (v is None and _SPEC[name].endswith("?"))):
            out.append(f"metrics.{name}: expected a number, got {v!r:.40}")
    for name, kind in OPTIONAL_METRICS.items():
        if name in m and not isinstance(m[name], kind):
            out.append(f"metrics.{name}: expected an object, got {m[name]!r:.40}")
    return out


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v  # not NaN
