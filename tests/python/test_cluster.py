"""`--cluster` pointed at something that is not a Dask scheduler, and a scheduler lost
mid-sweep: one clear line, exit status, and an end within the connect limit
(docs/sweeps.md, "How points run").

The servers are local and started by each test: a web server, one that sends garbage, one
that accepts and never answers, one that closes at once. The subprocess timeout is only a
guard against a hang; the time bound is asserted on the measured time.
"""

import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO
from rxbisect.output import records
from rxbisect.study.sweeps import CONNECT_TIMEOUT_S
from test_sweep import REAL_ENGINE, SETS, gated  # noqa: F401 (gated: a fixture)

GUARD_S = 120  # a hang fails the test here, not the speed assertion
SLACK_S = 5  # interpreter start-up and planning, on a busy machine
GRID = ["--grid", "arch.name=privring,rxbisect", "--seeds", "3"]


def rxb_sweep(address: str, out: Path, env: dict | None = None) -> tuple[int, str, float]:
    """`rxb sweep ... --cluster ADDRESS`: (exit status, stderr, seconds it took)."""
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "rxbisect", "sweep", *SETS, *GRID, "--out",
                        str(out), "--no-progress", "--cluster", address], cwd=REPO,
                       capture_output=True, text=True, timeout=GUARD_S, env=env)
    return p.returncode, p.stderr, time.monotonic() - start


class Server:
    """A TCP server on a free local port; `on_accept(conn)` runs for each connection,
    whose sockets are kept open until the test ends."""

    def __init__(self, on_accept):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.kept: list[socket.socket] = []
        self.on_accept = on_accept
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed at the end of the test
            self.kept.append(conn)
            self.on_accept(conn)

    def close(self) -> None:
        self.sock.close()
        for c in self.kept:
            c.close()


@pytest.fixture
def server():
    made: list[Server] = []

    def make(on_accept) -> int:
        made.append(Server(on_accept))
        return made[-1].port
    yield make
    for s in made:
        s.close()


@pytest.fixture
def web_server():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # noqa: D102 (http.server API)
            pass
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def assert_one_line(rc: int, err: str, address: str, says: str) -> None:
    assert rc == 2, err
    assert err.splitlines() == [f"rxb: error: --cluster {address}: {says}"], err


def test_a_web_server_is_named_as_one(web_server, tmp_path):
    address = f"127.0.0.1:{web_server}"
    rc, err, took = rxb_sweep(address, tmp_path / "o")
    assert_one_line(rc, err, address, "this is an HTTP server (the Dask dashboard?); the "
                    "scheduler is usually port 8786")
    assert took < CONNECT_TIMEOUT_S + SLACK_S
    assert not (tmp_path / "o").exists()


def test_a_server_that_sends_garbage_is_not_a_scheduler(server, tmp_path):
    port = server(lambda c: c.sendall(b"\xff" * 8 + b"SSH-2.0-not-dask\r\n"))
    address = f"tcp://127.0.0.1:{port}"
    rc, err, took = rxb_sweep(address, tmp_path / "o")
    assert_one_line(rc, err, address, "what answers there is not a Dask scheduler (it sent "
                    "b'\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff')")
    assert took < CONNECT_TIMEOUT_S + SLACK_S
    assert "MemoryError" not in err and "Traceback" not in err


def test_a_server_that_never_answers_is_given_up_on_within_the_limit(server, tmp_path):
    address = f"127.0.0.1:{server(lambda c: None)}"
    rc, err, took = rxb_sweep(address, tmp_path / "o")
    assert_one_line(rc, err, address, f"it accepted the connection but sent nothing in "
                    f"{CONNECT_TIMEOUT_S} s (a Dask scheduler greets at once)")
    assert CONNECT_TIMEOUT_S - 1 < took < CONNECT_TIMEOUT_S + SLACK_S


def test_a_server_that_closes_at_once_is_not_a_scheduler(server, tmp_path):
    address = f"127.0.0.1:{server(lambda c: c.close())}"
    rc, err, took = rxb_sweep(address, tmp_path / "o")
    assert_one_line(rc, err, address, "it closed the connection without a word (not a Dask "
                    "scheduler)")
    assert took < CONNECT_TIMEOUT_S + SLACK_S


# ---- a real scheduler, killed mid-sweep ---------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, "dask scheduler did not start"
        assert time.monotonic() < deadline, "dask scheduler did not listen within 60 s"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)


@pytest.fixture
def dask_cluster(gated):  # noqa: F811 (the fixture of test_sweep)
    """(address, scheduler process, env, open_gate): a `dask scheduler` and one `dask
    worker` (2 threads) as processes of their own, running the gated engine."""
    pytest.importorskip("distributed")
    env, open_gate = gated
    dask = str(Path(sys.executable).parent / "dask")
    if not os.access(dask, os.X_OK):
        pytest.skip("the `dask` command of the distributed package is not installed")
    port = _free_port()
    sched = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                              "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    worker = None
    try:
        _wait_for_port(port, sched)
        worker = subprocess.Popen([dask, "worker", f"tcp://127.0.0.1:{port}", "--nthreads",
                                   "2", "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        yield f"tcp://127.0.0.1:{port}", sched, env, open_gate
    finally:
        open_gate()
        for p in (worker, sched):
            if p is not None:
                p.send_signal(signal.SIGKILL)
                p.wait()


@pytest.mark.skipif(REAL_ENGINE is None, reason="rxb-sim not built (make build)")
def test_a_scheduler_killed_mid_sweep_ends_in_one_line_and_a_rerun_resumes(dask_cluster,
                                                                           tmp_path):
    address, sched, env, open_gate = dask_cluster
    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-m", "rxbisect", "sweep", *SETS, *GRID,
                             "--out", str(out), "--no-progress", "--cluster", address],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    path = out / records.FILE
    deadline = time.monotonic() + 60
    while not (path.exists() and b"\n" in path.read_bytes()):  # seed 1 runs, the rest wait
        assert proc.poll() is None, f"sweep ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "no record within 60 s"
        time.sleep(0.02)
    sched.send_signal(signal.SIGKILL)
    sched.wait()
    start = time.monotonic()
    _, err = proc.communicate(timeout=GUARD_S)
    assert time.monotonic() - start < CONNECT_TIMEOUT_S + SLACK_S
    assert proc.returncode == 1, err
    done = len(path.read_bytes().splitlines())
    assert err.splitlines() == [
        "rxb: error: lost the connection to the Dask scheduler mid-sweep (it stopped, or the "
        f"network failed); {done} of 6 points are recorded in {path}; run the same command "
        "again to run the others"], err
    open_gate()  # the rest runs on the local pool now
    p = subprocess.run([sys.executable, "-m", "rxbisect", "sweep", *SETS, *GRID, "--out",
                        str(out), "--no-progress"], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=GUARD_S)
    assert p.returncode == 0, p.stderr
    assert f"6 points: {6 - done} run now, {done} already recorded" in p.stdout
