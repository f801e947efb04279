"""`PrimaryNode`: the devnet's P-, X- and C-chain containers, accepted and indexed like a node.

Stage: devnet. Owns the PrimarySim (what the network produces) and the IndexStore (what this
node indexed). On a fresh data dir it builds the history: the C-chain anvil's blocks come
first (their times place the atomic txs), then the P/X history, then one container per C-chain
block with its atomic txs; all of it and the simulator state commit in one SQLite transaction.
Then, in live mode, a producer thread runs one round every `live_interval` seconds: P and X
blocks of random traffic at wall-clock time plus a container for each new C-chain block,
committed with the state in one transaction. So a kill -9 anywhere leaves an index that is
whole and continuous, and a restart resumes from exactly the state that index reflects.

Restart after downtime (seed rule 3): the network did not stop while this node was down, so
the rounds it missed are produced on restart, with block times spread over the gap and, as
avalanchego does for containers accepted while bootstrapping (rule 4), the restart's wall
time as their acceptance time. Indexing off (rule 2): containers are accepted and the state
moves on, but nothing is indexed and the Index API does not exist; rules 1 and 5 are
IndexStore.check_flags.

Invariant: `lock` is held while the simulator state changes; readers of `sim` (validators,
platform API) take it too.
"""

from __future__ import annotations

import logging
import pickle
import random
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from avadata.devnet.primary.cchain_containers import CContainers, fetch_blocks
from avadata.devnet.primary.containers import Container
from avadata.devnet.primary.index_store import IndexStore
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from avadata.devnet.rpc import Rpc

log = logging.getLogger(__name__)

STATE_VERSION = 1
MAX_CATCH_UP_ROUNDS = 100  # a long outage is replayed as this many rounds, spread over it


@dataclass
class NodeState:
    """Everything a restart needs; pickled into the index file with each round."""

    version: int
    sim: PrimarySim
    c: CContainers | None
    last_round: int  # block time (unix seconds) of the last round produced
    jitter: random.Random  # acceptance delays of C containers, seeded: reproducible history


def _unpickle(saved: bytes) -> NodeState | None:
    """The saved state, or None when it names classes this build does not have (a state
    saved before the devnet's modules moved, say)."""
    try:
        state: NodeState = pickle.loads(saved)
    except (ModuleNotFoundError, AttributeError):
        return None
    return state


@dataclass(frozen=True)
class NodeOptions:
    config: PrimaryConfig
    data_dir: Path | None = None  # None: a temporary folder, removed on stop
    c_rpc_url: str | None = None  # the C-chain's anvil; None: no C/block index
    index_enabled: bool = True
    allow_incomplete: bool = False
    live_interval: float | None = 3.0  # None: history only


class PrimaryNode:
    def __init__(self, options: NodeOptions, now: Callable[[], float] = time.time) -> None:
        self.options = options
        self.lock = threading.Lock()
        self._now = now
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        folder = options.data_dir
        if folder is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="avadata-node-")
            folder = Path(self._tmp.name)
        self.path = folder / "index.db"
        self._store: IndexStore | None = None
        self._state: NodeState | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- views ----------------------------------------------------------------------------------

    @property
    def sim(self) -> PrimarySim:
        assert self._state is not None, "not started"
        return self._state.sim

    @property
    def store(self) -> IndexStore:
        assert self._store is not None, "not started"
        return self._store

    def index_store(self) -> IndexStore | None:
        """The store the Index API reads, or None when indexing is off (no Index API)."""
        return self._store if self.options.index_enabled else None

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Raises IndexConfigError when the index flags forbid starting (rule 5)."""
        store = IndexStore(self.path)
        self._store = store
        try:
            store.check_flags(self.options.index_enabled, self.options.allow_incomplete)
            saved = store.load_state()
            if saved is None:
                self._build_history()
            else:
                self._state = _unpickle(saved)
                if self._state is None or self._state.version != STATE_VERSION:
                    raise RuntimeError(f"{self.path}: state of another avadata version")
                self._catch_up()
        except BaseException:
            store.close()
            self._store = None
            raise
        if self.options.live_interval:
            self._thread = threading.Thread(target=self._loop, name="devnet-primary", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(30)
            self._thread = None
        if self._store is not None:
            with self.lock:
                self._store.close()
            self._store = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    # -- producing ------------------------------------------------------------------------------

    def _commit(self, containers: list[Container]) -> None:
        assert self._state is not None and self._store is not None
        blob = pickle.dumps(self._state, protocol=pickle.HIGHEST_PROTOCOL)
        self._store.commit(containers, blob, index=self.options.index_enabled)

    def _build_history(self) -> None:
        config = self.options.config
        sim = PrimarySim(config)
        jitter = random.Random(f"avadata-node/{config.seed}")
        c_blocks: list[tuple[dict[str, object], list[bytes]]] = []
        c: CContainers | None = None
        if self.options.c_rpc_url is not None:
            with Rpc(self.options.c_rpc_url) as rpc:
                head = int(rpc.call("eth_blockNumber"), 16)
                genesis = rpc.call("eth_getBlockByNumber", ["0x0", False])
                c = CContainers(bytes.fromhex(genesis["hash"][2:]))
                c_blocks = list(fetch_blocks(rpc, 1, head)) if head else []
        numbered = [(int(str(b["number"]), 16), int(str(b["timestamp"]), 16)) for b, _ in c_blocks]
        containers = sim.history(numbered)
        last = max([config.start, sim.p.state.time, sim.x.time, *(t for _, t in numbered)])
        self._state = NodeState(STATE_VERSION, sim, c, last, jitter)
        if c is not None:
            for block, raws in c_blocks:
                t = int(str(block["timestamp"]), 16)
                accepted = t * 1_000_000_000 + jitter.randrange(50_000_000, 1_500_000_000)
                number = int(str(block["number"]), 16)
                atomic = sim.c_atomic.get(number, [])
                p_height = sim.p.state.height_at(t)
                containers.append(c.build(block, raws, atomic, accepted, p_height))
        with self.lock:
            self._commit(containers)

    def _round(self, t: int, clock: Callable[[int], int]) -> list[Container]:
        """One round at block time `t`: P and X blocks, then containers for new C blocks."""
        state = self._state
        assert state is not None
        out = state.sim.live(t, clock)
        if state.c is not None and self.options.c_rpc_url is not None:
            with Rpc(self.options.c_rpc_url, timeout=30) as rpc:
                head = int(rpc.call("eth_blockNumber"), 16)
                # After a kill -9 the anvil may reload an older state than the index holds:
                # its blocks up to the indexed number are then not the indexed ones, and the
                # C index resumes once the chain is past it.
                if head > state.c.last_number:
                    for block, raws in fetch_blocks(rpc, state.c.last_number + 1, head):
                        bt = int(block["timestamp"], 16)
                        p_height = state.sim.p.state.height_at(bt)
                        out.append(state.c.build(block, raws, [], clock(bt), p_height))
        state.last_round = max(state.last_round, t)
        return out

    def _live_once(self) -> None:
        t = int(self._now())

        def clock(block_time: int) -> int:
            # Accepted as soon as produced: wall time, never before the block's own time.
            return max(time.time_ns(), block_time * 1_000_000_000)

        with self.lock:
            assert self._state is not None and self._store is not None
            if t <= self._state.last_round:
                return
            try:
                self._commit(self._round(t, clock))
            except BaseException:
                # A round that failed half-way has changed the simulators in memory; go back to
                # the state the index reflects so the next round continues from it.
                saved = self._store.load_state()
                if saved is not None:
                    self._state = pickle.loads(saved)
                raise

    def _catch_up(self) -> None:
        """Produce the rounds missed while the node was down, accepted at restart time."""
        assert self._state is not None
        interval = self.options.live_interval
        now = int(self._now())
        gap = now - self._state.last_round
        if not interval or gap <= interval:
            return
        rounds = min(MAX_CATCH_UP_ROUNDS, int(gap // interval))
        boot_ns = time.time_ns()
        step = gap / rounds
        times = [self._state.last_round + int(step * (k + 1)) for k in range(rounds)]
        counter = iter(range(1, 1 << 62))

        def bootstrap_clock(block_time: int) -> int:
            return boot_ns + next(counter)  # rule 4: the bootstrap time, in acceptance order

        containers: list[Container] = []
        with self.lock:
            for t in times:
                if t > self._state.last_round:
                    containers += self._round(t, bootstrap_clock)
            self._commit(containers)
        log.info("caught up %d rounds (%d containers) missed while down", rounds, len(containers))

    def _loop(self) -> None:
        interval = self.options.live_interval or 3.0
        failing = False
        while not self._stopping.wait(interval):
            try:
                self._live_once()
                failing = False
            except Exception as exc:  # keep the devnet up; say it once per failure streak
                if not failing:
                    log.warning("primary-network round failed: %r", exc)
                failing = True
