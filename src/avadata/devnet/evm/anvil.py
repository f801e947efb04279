"""Start, wait for and stop anvil processes on 127.0.0.1: one per EVM chain of the devnet.

Stage: devnet. This module only manages processes; it sends no traffic (see traffic.py).

Invariant: every anvil started here dies with us. Three layers make sure of it: the child asks
the kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG, Linux), an atexit hook stops the
ones still running at a normal interpreter exit, and `AnvilProcess` is a context manager.

Its disk goes with it too: anvil moves old blocks' states out of memory into a cache directory
(by default ~/.foundry/anvil/tmp) and never removes it, on SIGTERM or SIGINT alike: 3.3 GB per
bench chain, 76 GB after a day of benches and test runs filled this machine's disk. Each anvil
started here gets its own cache directory under the system's temp dir, removed when it stops;
one left by a process that was killed first (its anvils died with it) is removed by the next
start, which knows it from the dead process ID in its name.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx

from avadata.paths import anvil_binary

C_CHAIN_ID = 43113  # Fuji's C-chain ID, our default for the devnet's C-chain.
HOST = "127.0.0.1"
# anvil's default dev accounts get this many ether each: enough to fund every generated address
# for the largest benchmark chain without anvil_setBalance, so every wei has an on-chain origin.
DEV_BALANCE_ETHER = 1_000_000_000
_LISTENING = re.compile(r"Listening on ([0-9.]+):(\d+)")
_CACHE_PREFIX = "avadata-anvil-"
_PR_SET_PDEATHSIG = 1

_running: set[AnvilProcess] = set()
_spawn_queue: queue.Queue[tuple[list[str], Future[subprocess.Popen[bytes]]]] = queue.Queue()
_spawner: threading.Thread | None = None
_running_lock = threading.Lock()


class AnvilError(RuntimeError):
    """anvil did not start, or stopped answering."""


@dataclass(frozen=True)
class AnvilOptions:
    """How one chain's anvil is started.

    `state_file`: when set, anvil loads it at start if it exists and writes it at exit (and
    every `state_interval` seconds), so a devnet with a data dir survives restarts. A reloaded
    anvil cannot run eth_call at past blocks nor geth-style traces of old blocks.
    `automine`: False (the traffic generator's mode) leaves transactions in the pool until
    evm_mine, so one block holds a whole batch.
    """

    chain_id: int = C_CHAIN_ID
    port: int = 0  # 0: the kernel picks a free port and anvil reports it
    state_file: Path | None = None
    state_interval: int | None = None
    automine: bool = False
    genesis_timestamp: int | None = None
    gas_limit: int = 30_000_000
    accounts: int = 10
    extra_args: Sequence[str] = ()


@dataclass(eq=False)
class AnvilProcess:
    """A running anvil. `rpc_url` is its JSON-RPC endpoint on 127.0.0.1."""

    options: AnvilOptions
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path | None = None
    cache_dir: Path | None = None  # anvil's persisted states; removed at stop
    _stopped: bool = field(default=False, repr=False)

    @property
    def chain_id(self) -> int:
        return self.options.chain_id

    @property
    def rpc_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM (anvil then writes its state file, if any), SIGKILL after `timeout`."""
        if self._stopped:
            return
        self._stopped = True
        with _running_lock:
            _running.discard(self)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.cache_dir is not None:
            shutil.rmtree(self.cache_dir, ignore_errors=True)

    def __enter__(self) -> AnvilProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _die_with_parent() -> None:
    """Runs in the child between fork and exec: SIGKILL us when the parent goes away."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    # The parent may have died before prctl took effect: then we were reparented already.
    if os.getppid() == 1:
        os._exit(1)


def _spawner_loop() -> None:
    while True:
        argv, future = _spawn_queue.get()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
                # Its own process group: a terminal's Ctrl-C reaches only us, and we stop anvil
                # after the last block is mined, so its saved state matches the ledger.
                process_group=0,
            )
        except BaseException as exc:
            future.set_exception(exc)
        else:
            future.set_result(proc)


def _spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    """Popen from one long-lived thread. PR_SET_PDEATHSIG fires when the *thread* that forked
    the child exits, not the process: an anvil started from a short-lived worker thread (a
    ThreadPoolExecutor's, say) would be killed with it. This daemon thread lives as long as
    the process does."""
    global _spawner
    with _running_lock:
        if _spawner is None:
            _spawner = threading.Thread(target=_spawner_loop, name="anvil-spawner", daemon=True)
            _spawner.start()
    future: Future[subprocess.Popen[bytes]] = Future()
    _spawn_queue.put((argv, future))
    return future.result()


def anvil_args(options: AnvilOptions) -> list[str]:
    """The command line for `options` (without the binary)."""
    args = [
        "--host",
        HOST,
        "--port",
        str(options.port),
        "--chain-id",
        str(options.chain_id),
        "--accounts",
        str(options.accounts),
        "--balance",
        str(DEV_BALANCE_ETHER),
        "--gas-limit",
        str(options.gas_limit),
        # Transactions enter blocks in the order sent: the seeded generator relies on it.
        "--order",
        "fifo",
        # Any address can send through eth_sendTransaction: no key handling in Python.
        "--auto-impersonate",
        # A real chain has no code at genesis; anvil's CREATE2 deployer would be code with no
        # creation transaction.
        "--disable-default-create2-deployer",
    ]
    if not options.automine:
        args.append("--no-mining")
    if options.genesis_timestamp is not None:
        args += ["--timestamp", str(options.genesis_timestamp)]
    if options.state_file is not None:
        args += ["--state", str(options.state_file)]
        if options.state_interval:
            args += ["--state-interval", str(options.state_interval)]
    args += list(options.extra_args)
    return args


def start_anvil(
    options: AnvilOptions | None = None,
    *,
    log_path: Path | None = None,
    ready_timeout: float = 30.0,
) -> AnvilProcess:
    """Start anvil and return once it answers eth_chainId with the expected chain ID.

    Its output goes to `log_path` when given (anvil logs every request, so not to a pipe that
    nobody reads), else to /dev/null. Raises AnvilError if it exits or stays silent.
    """
    options = options or AnvilOptions()
    if options.state_file is not None:
        options.state_file.parent.mkdir(parents=True, exist_ok=True)
    binary = anvil_binary()
    # The port line is the first thing we need; read it from a pipe, then let a thread drain
    # (or copy) the rest so anvil never blocks on a full pipe.
    cache_dir = _new_cache_dir()
    try:
        proc = _spawn([str(binary), *anvil_args(options), "--cache-path", str(cache_dir)])
    except BaseException:
        shutil.rmtree(cache_dir, ignore_errors=True)
        raise
    assert proc.stdout is not None
    anvil = AnvilProcess(
        options=options, process=proc, port=options.port, log_path=log_path, cache_dir=cache_dir
    )
    with _running_lock:
        _running.add(anvil)
    try:
        anvil.port = _read_port(proc, ready_timeout)
        threading.Thread(
            target=_drain, args=(proc.stdout, log_path), name=f"anvil-{proc.pid}", daemon=True
        ).start()
        _wait_ready(anvil, ready_timeout)
    except BaseException:
        anvil.stop(timeout=5)
        raise
    return anvil


def _new_cache_dir() -> Path:
    """A cache directory for one anvil, named after this process; those of processes that are
    gone are removed first."""
    tmp = Path(tempfile.gettempdir())
    for old in tmp.glob(f"{_CACHE_PREFIX}*-*"):
        pid = old.name[len(_CACHE_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _process_exists(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{_CACHE_PREFIX}{os.getpid()}-", dir=tmp))


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    return True


def _read_port(proc: subprocess.Popen[bytes], timeout: float) -> int:
    """Read anvil's output until its "Listening on" line; returns the port it bound."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    buffer = b""
    # select + os.read, not readline: a silent anvil must not block us past the deadline.
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        buffer += chunk
        match = _LISTENING.search(buffer.decode(errors="replace"))
        if match:
            return int(match.group(2))
    tail = buffer.decode(errors="replace")[-2000:]
    raise AnvilError(f"anvil exited or never listened (code {proc.poll()}):\n{tail}")


def _drain(stream: IO[bytes], log_path: Path | None) -> None:
    # os.read on the descriptor returns what is there (no waiting for a full buffer), so the
    # log stays current while anvil runs.
    fd = stream.fileno()
    out = log_path.open("ab") if log_path is not None else None
    try:
        while chunk := os.read(fd, 65536):
            if out is not None:
                out.write(chunk)
                out.flush()
    finally:
        if out is not None:
            out.close()
        stream.close()


def _wait_ready(anvil: AnvilProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
    last_error: Exception | None = None
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if not anvil.alive():
                raise AnvilError(f"anvil exited with code {anvil.process.returncode}")
            try:
                answer = client.post(anvil.rpc_url, json=body).json()
                chain_id = int(answer["result"], 16)
                if chain_id != anvil.chain_id:
                    raise AnvilError(f"anvil reports chain {chain_id}, wanted {anvil.chain_id}")
                return
            except (httpx.HTTPError, KeyError, ValueError) as exc:
                last_error = exc
                time.sleep(0.05)
    raise AnvilError(f"anvil on port {anvil.port} not ready after {timeout}s: {last_error}")


def stop_all() -> None:
    """Stop every anvil this process started and has not stopped yet."""
    with _running_lock:
        running = list(_running)
    for anvil in running:
        anvil.stop(timeout=5)


atexit.register(stop_all)
