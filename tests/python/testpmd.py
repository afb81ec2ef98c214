"""Drive Debian's unmodified dpdk-testpmd on net_rxbisect, interactively.

A TestPmd starts `dpdk-testpmd -i` with the driver loaded (`-d`), sends
commands on stdin and reads until the `testpmd> ` prompt. Waiting is by
condition (an xstat reaching a value) with a generous deadline, never by a
fixed sleep that a result depends on.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "testpmd> "
TESTPMD = shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"
_seq = itertools.count()


def pmd_so(build: str | None = None) -> Path:
    """The driver of build dir $RXB_PMD_BUILD (default build/)."""
    b = build or os.environ.get("RXB_PMD_BUILD", "build")
    return ROOT / b / "pmd" / "librte_net_rxbisect.so"


def pmd_so_loadable() -> Path:
    """A copy of the driver the EAL agrees to load: it refuses `-d` paths with
    a world-writable directory above them (a checkout under /tmp), so the
    copy goes to a private directory under ~/.cache."""
    src = pmd_so()
    key = hashlib.sha1(str(src).encode()).hexdigest()[:12]
    d = Path.home() / ".cache" / "rxbisect" / "pmd-test" / key
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    dst = d / src.name
    if not dst.exists() or dst.stat().st_mtime < src.stat().st_mtime:
        tmp = d / (src.name + f".{os.getpid()}")
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    return dst


def _runtime(name: str) -> str:
    return subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True,
                          text=True, check=True).stdout.strip()


def asan_env() -> dict:
    """A sanitizer-built driver in a plain testpmd needs its runtime preloaded."""
    env = dict(os.environ)
    if os.environ.get("RXB_PMD_TSAN"):
        env["LD_PRELOAD"] = _runtime("libtsan.so")
        env["TSAN_OPTIONS"] = "halt_on_error=1:report_signal_unsafe=0"
    if os.environ.get("RXB_PMD_ASAN"):
        lib = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()
        ubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True,
                               text=True, check=True).stdout.strip()
        env["LD_PRELOAD"] = f"{lib} {ubsan}"
        # DPDK keeps its hugepage-less memory mapped at exit: leaks are not ours to judge here
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
        env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    return env


def eal_args(vdevs: list[str], lcores: str, service: str | None, prefix: str) -> list[str]:
    args = ["--no-huge", "-m", "1024", "--no-pci", f"--file-prefix={prefix}",
            "--lcores", lcores, "-d", str(pmd_so_loadable()),
            "--log-level=pmd.net.rxbisect:info"]
    if service is not None:
        args += ["-S", service]
    for v in vdevs:
        args += ["--vdev", v]
    return args


class TestPmd:
    __test__ = False  # not a pytest class

    def __init__(self, devargs: str, app: list[str] | None = None, *, lcores="0@0,1@1,2@0",
                 service: str | None = "2", pre_vdevs: list[str] | None = None,
                 timeout: float = 60):
        self.prefix = f"rxbpmd{os.getpid()}_{next(_seq)}"
        vdevs = (pre_vdevs or []) + [f"net_rxbisect0,{devargs}"]
        self.cmdline = [TESTPMD, *eal_args(vdevs, lcores, service, self.prefix), "--",
                        "-i", *(app or [])]
        # A terminal, as for a user: testpmd's printf output is then line
        # buffered and arrives before the next prompt.
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(self.cmdline, stdin=slave, stdout=slave, stderr=slave,
                                     env=asan_env(), start_new_session=True)
        os.close(slave)
        self.log = ""
        self.started = self._read_until(PROMPT, timeout)
        # The application's port: net_rxbisect0's id (the wire's is hidden).
        m = re.search(r"Configuring Port (\d+)", self.log)
        self.port = int(m.group(1)) if m else 0

    # -- I/O ---------------------------------------------------------------
    def _read_until(self, token: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        fd = self.master
        start = len(self.log)
        while token not in self.log[start:]:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([fd], [], [], min(left, 1.0))
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the other side closed
                    chunk = b""
                if not chunk:
                    return False  # exited
                self.log += chunk.decode(errors="replace")
        return True

    def send(self, line: str) -> None:
        """Type a command without waiting for the prompt (see wait_output)."""
        os.write(self.master, (line + "\r").encode())

    def cmd(self, line: str, timeout: float = 60) -> str:
        start = len(self.log)
        self.send(line)
        if not self._read_until(PROMPT, timeout):
            raise TimeoutError(f"testpmd did not answer {line!r} in {timeout} s:\n"
                               f"{self.log[-3000:]}")
        return self.log[start:]

    def wait_output(self, pattern: str, count: int, timeout: float = 60) -> int:
        """Read, sending nothing, until `pattern` occurs `count` times (for
        output the forwarding lcores print, which can split the prompt)."""
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, self.log)) < count and time.monotonic() < deadline:
            self._read_until("\n", min(1.0, max(deadline - time.monotonic(), 0.01)))
        return len(re.findall(pattern, self.log))

    def quit(self, timeout: float = 60) -> int:
        try:
            os.write(self.master, b"quit\r")
        except OSError:
            pass
        self._read_until("Bye...", timeout)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    # -- queries -----------------------------------------------------------
    def xstats(self) -> dict[str, int]:
        """The port's xstats, read from testpmd's whole answer: the lines between its header
        and the prompt after it. A prompt that arrives before the answer (the forwarding
        lcores' output can split one) ends cmd() early, and a number cut at the end of what
        was read then passed for the value (offered 65922 for 6592216: a false conservation
        failure under load)."""
        start = len(self.log)
        self.cmd(f"show port xstats {self.port}")
        head = f"NIC extended statistics for port {self.port}"
        deadline = time.monotonic() + 60
        while head not in (out := self.log[start:]) or PROMPT not in out[out.index(head):]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"testpmd's xstats never finished:\n{out[-3000:]}")
            self._read_until("\n", 1.0)
        answer = out[out.index(head):]
        answer = answer[:answer.index(PROMPT)]
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r"^(\w+): (\d+)\s*$", answer, re.M)}

    def wait_xstat(self, pred, what: str, timeout: float = 60) -> dict[str, int]:
        """Poll xstats until pred(xstats) holds; fail naming `what`."""
        deadline = time.monotonic() + timeout
        while True:
            xs = self.xstats()
            if pred(xs):
                return xs
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; xstats: {xs}")
            time.sleep(0.1)

    def link_status(self) -> str:
        m = re.search(r"Link status: (\w+)", self.cmd(f"show port info {self.port}"))
        return m.group(1) if m else "?"


def queue_sum(xs: dict[str, int], what: str, nq: int) -> int:
    return sum(xs.get(f"rx_q{q}_{what}", 0) for q in range(nq))


def conservation_errors(xs: dict[str, int], nq: int) -> list[str]:
    """Packet conservation per queue, from a stopped port's xstats. Occupancy
    counts entries, which in rxBisect include consumption-only notices, so
    unread packets are bounded by it; the driver's census at stop checks the
    exact balance (census_lines)."""
    errs = []
    for q in range(nq):
        def g(k: str, q: int = q) -> int:
            return xs.get(f"rx_q{q}_{k}", 0)
        drops = sum(v for k, v in xs.items() if k.startswith(f"rx_q{q}_drops_"))
        if g("offered") != g("delivered") + drops:
            errs.append(f"q{q}: offered {g('offered')} != delivered {g('delivered')} + "
                        f"drops {drops}")
        # recycled: taken by the receive and dropped there (rxBisect, pool empty)
        taken = g("received") + g("recycled")
        if not 0 <= g("delivered") - taken <= g("occupancy"):
            errs.append(f"q{q}: delivered {g('delivered')} - taken {taken} not "
                        f"within unread entries {g('occupancy')}")
    # a frame a NIC thread took for a queue of another thread never reaches the design
    offered = queue_sum(xs, "offered", nq) + xs.get("rx_nic_misrouted", 0)
    if xs["rx_wire_packets"] != offered:
        errs.append(f"wire {xs['rx_wire_packets']} != offered + misrouted {offered}")
    return errs


def census_lines(log: str) -> list[str]:
    """The driver's census at each stop; an ERR line instead on a broken invariant."""
    assert "census at stop: " not in log.replace("census at stop: offered", ""), log[-3000:]
    return re.findall(r"census at stop: offered .*", log)
