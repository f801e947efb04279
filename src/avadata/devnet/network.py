"""`Devnet`: the local Avalanche network of `avadata devnet`: anvil chains, history, facade.

Stage: devnet. Wires evm/ (anvil.py, traffic.py), primary/ (node.py) and facade/ together; owns
their lifetimes.

On start, each chain gets an anvil and a seeded history (or, with a data dir that already
holds one, the anvil reloads its saved state and the history is not regenerated); then the
primary-network node (primary/node.py: P/X simulators, C-chain containers, the persisted
index) starts over the same days; then the facade serves every chain, the Index API, the
validators and platform APIs and the subnet-EVM extras on one port (a sub-second chain's
blocks with millisecond headers); then, in live mode, a thread mines a small block of traffic
on each chain every `live_interval` seconds at wall-clock time (a burst of blocks in one second
on a sub-second chain), and the node adds P, X and C containers at the same pace.

Invariant: `stop()` leaves no process behind and, with a data dir, saves each chain's state
(anvil writes it on SIGTERM) and ledger.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from starlette.routing import BaseRoute

from avadata.decode.codec.ids import cb58_encode
from avadata.devnet import chains_file
from avadata.devnet.evm.anvil import C_CHAIN_ID, AnvilOptions, AnvilProcess, start_anvil
from avadata.devnet.evm.ledger import Ledger
from avadata.devnet.evm.traffic import TrafficConfig, TrafficGenerator
from avadata.devnet.facade.coreth import coreth_methods
from avadata.devnet.facade.index_api import index_routes
from avadata.devnet.facade.pnode_routes import node_routes
from avadata.devnet.facade.routes import ChainRoute
from avadata.devnet.facade.server import HOST, FacadeServer
from avadata.devnet.facade.subnet_evm import subnet_evm_methods
from avadata.devnet.facade.subsecond import millisecond_methods
from avadata.devnet.primary.network_ids import C_CHAIN_ID as C_CHAIN_BLOCKCHAIN_ID
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import L1Spec, PrimaryConfig
from avadata.devnet.rpc import Rpc
from avadata.devnet.schedule import DAY

log = logging.getLogger(__name__)


class DevnetCancelled(Exception):
    """Raised in a chain's history thread when the devnet stops before it is built."""


@dataclass(frozen=True)
class ChainSpec:
    """One EVM chain: `name` is "C" for the C-chain, the L1's URL alias otherwise.
    `subsecond`: several blocks a second (SUBSECOND_BURST), served with the millisecond
    headers of Granite (ACP-226, facade/subsecond.py)."""

    name: str
    chain_id: int
    subsecond: bool = False


DEFAULT_CHAINS = (
    ChainSpec("C", C_CHAIN_ID),
    ChainSpec("alpha", 99901),
    ChainSpec("beta", 99902),
)
# The L1 `avadata devnet --subsecond` adds, and how many blocks it mines in each second.
SUBSECOND_CHAIN = ChainSpec("fast", 99903, subsecond=True)
SUBSECOND_BURST = 4


def devnet_chains(subsecond: bool = False) -> tuple[ChainSpec, ...]:
    """The devnet's EVM chains: the default three, and the sub-second L1 when asked."""
    return (*DEFAULT_CHAINS, SUBSECOND_CHAIN) if subsecond else DEFAULT_CHAINS


def _route(chain: DevnetChain) -> ChainRoute:
    """A chain behind the facade; the C-chain answers eth_getChainConfig as coreth does, a
    sub-second chain's blocks carry timeMilliseconds."""
    spec = chain.spec
    methods = coreth_methods(spec.chain_id) if spec.name == "C" else {}
    if spec.subsecond:
        methods = {**methods, **millisecond_methods(chain.anvil.rpc_url)}
    return ChainRoute(spec.name, spec.chain_id, chain.anvil.rpc_url, local_methods=methods)


def _check_port_free(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))  # OSError (EADDRINUSE) when taken


def evm_rpc_paths(chains: tuple[ChainSpec, ...] = DEFAULT_CHAINS) -> list[str]:
    """The facade paths of the devnet's EVM chains, C-chain first: "/ext/bc/C/rpc", ..."""
    return [f"/ext/bc/{c.name}/rpc" for c in chains]


def default_start(days: int, now: float | None = None) -> int:
    """Midnight UTC `days` days before today's: the history then ends before today starts,
    so live blocks (at wall-clock time) follow it without a jump back."""
    today = int(now if now is not None else time.time()) // DAY * DAY
    return today - days * DAY


@dataclass(frozen=True)
class DevnetConfig:
    port: int = 9650  # 0: any free port
    data_dir: Path | None = None  # None: nothing kept after stop
    seed: int = 1
    chains: tuple[ChainSpec, ...] = DEFAULT_CHAINS
    # History per chain; its seed is replaced by `seed`, its start (if 0) by default_start.
    history: TrafficConfig = field(default_factory=lambda: TrafficConfig(start_timestamp=0))
    live_interval: float | None = 3.0  # seconds between live blocks; None: no live blocks
    live_txs: int = 5
    # The primary network (P/X simulators, C-chain containers, Index API): None for EVM only.
    # Its seed, start, days and L1s are replaced by the devnet's own.
    primary: PrimaryConfig | None = field(default_factory=PrimaryConfig)
    index_enabled: bool = True  # avalanchego's --index-enabled
    index_allow_incomplete: bool = False  # avalanchego's --index-allow-incomplete


@dataclass
class DevnetChain:
    spec: ChainSpec
    anvil: AnvilProcess
    ledger: Ledger
    generator: TrafficGenerator
    rpc_url: str = ""  # through the facade


class Devnet:
    """Start with `start()` (or `with Devnet(config) as net:`), stop with `stop()`."""

    def __init__(self, config: DevnetConfig | None = None) -> None:
        self.config = config or DevnetConfig()
        self.chains: dict[str, DevnetChain] = {}
        self.facade: FacadeServer | None = None
        self.node: PrimaryNode | None = None
        self._live: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # live mining vs. stop/save

    # -- lifecycle --------------------------------------------------------------------------

    def start(self, progress: Callable[[str, int, int], None] | None = None) -> None:
        """Start every chain (in parallel: anvil does the work, we mostly wait), then the
        facade, then the live thread. On any failure, stops what did start and re-raises."""
        if self.config.port:
            _check_port_free(self.config.port)  # fail before minutes of history, not after
        try:
            self._start_chains(progress)
            extra: list[BaseRoute] = []
            routes = [_route(c) for c in self]
            if self.config.primary is not None:
                node = self._start_node(self.config.primary)
                extra += index_routes(node.index_store)
                extra += node_routes(lambda: node.sim, node.lock)
                routes = [self._with_node(route, node) for route in routes]
            if self.config.data_dir is not None:  # before the facade: ready when it answers
                named = [(c.spec.name, c.spec.chain_id) for c in self]
                self.chains_file.write_text(chains_file.text(named, self.node))
            self.facade = FacadeServer(routes, port=self.config.port, extra_routes=extra)
            self.facade.start()
            for chain in self:
                chain.rpc_url = self.facade.rpc_url(chain.spec.name)
            if self.config.live_interval:
                self._live = threading.Thread(target=self._live_loop, name="devnet-live")
                self._live.daemon = True
                self._live.start()
        except BaseException:
            self.stop()
            raise

    def _history_start(self) -> int:
        history = self.config.history
        return history.start_timestamp or default_start(history.days)

    def _start_node(self, primary: PrimaryConfig) -> PrimaryNode:
        """The P/X simulators and the indexed containers, after the EVM chains' history (the
        C-chain's block times place the atomic txs)."""
        l1s = tuple(L1Spec(c.name, c.chain_id) for c in self.config.chains if c.name != "C")
        config = replace(
            primary,
            seed=self.config.seed,
            start=self._history_start(),
            days=self.config.history.days,
            history_blocks=self.config.history.blocks,  # the fee changes fall inside them
            l1s=l1s,
        )
        c_chain = self.chains.get("C")
        folder = self.config.data_dir / "node" if self.config.data_dir is not None else None
        node = PrimaryNode(
            NodeOptions(
                config,
                data_dir=folder,
                c_rpc_url=c_chain.anvil.rpc_url if c_chain is not None else None,
                index_enabled=self.config.index_enabled,
                allow_incomplete=self.config.index_allow_incomplete,
                live_interval=self.config.live_interval,
            )
        )
        node.start()
        self.node = node
        return node

    @staticmethod
    def _with_node(route: ChainRoute, node: PrimaryNode) -> ChainRoute:
        """A chain's route with its blockchain ID as an alias and, for an L1, the subnet-EVM
        extras answered from the config the devnet records for it."""
        if route.name == "C":
            return replace(route, aliases=(cb58_encode(C_CHAIN_BLOCKCHAIN_ID),))
        with node.lock:
            chain = node.sim.chain_of.get(route.name)
            config = node.sim.evm_config(route.name)
        if chain is None or config is None:
            return route
        methods = {**subnet_evm_methods(config, route.upstream), **route.local_methods}
        return replace(route, aliases=(cb58_encode(chain),), local_methods=methods)

    def _start_chains(self, progress: Callable[[str, int, int], None] | None) -> None:
        with ThreadPoolExecutor(max_workers=len(self.config.chains)) as pool:
            futures = [pool.submit(self._start_chain, s, progress) for s in self.config.chains]
            try:
                for future in futures:
                    chain = future.result()
                    self.chains[chain.spec.name] = chain
            except BaseException:
                # Ctrl-C or one chain failed: the others stop at their next block; keep the
                # ones that did start so that stop() stops them too.
                self._stopping.set()
                for future in futures:
                    try:
                        chain = future.result()
                    except BaseException:
                        continue
                    self.chains[chain.spec.name] = chain
                raise

    def _paths(self, spec: ChainSpec) -> tuple[Path, Path] | None:
        if self.config.data_dir is None:
            return None
        folder = self.config.data_dir / f"chain-{spec.chain_id}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / "anvil-state.json", folder / "ledger.json"

    def _start_chain(
        self, spec: ChainSpec, progress: Callable[[str, int, int], None] | None
    ) -> DevnetChain:
        history = self.config.history
        history = replace(history, seed=self.config.seed, start_timestamp=self._history_start())
        if spec.subsecond:
            history = replace(history, burst=SUBSECOND_BURST)
        paths = self._paths(spec)
        resume = None
        if paths is not None and paths[0].exists():
            if paths[1].exists():
                resume = Ledger.load(paths[1])
            else:  # a state without its ledger cannot be continued: start that chain afresh
                paths[0].unlink()
        options = AnvilOptions(
            chain_id=spec.chain_id,
            genesis_timestamp=history.start_timestamp,
            state_file=paths[0] if paths else None,
            state_interval=60 if paths else None,
        )
        log_path = paths[0].parent / "anvil.log" if paths else None
        anvil = start_anvil(options, log_path=log_path)
        try:
            rpc = Rpc(anvil.rpc_url)
            generator = TrafficGenerator(rpc, history, resume=resume)
            if resume is None:

                def report(done: int, total: int) -> None:
                    if self._stopping.is_set():
                        raise DevnetCancelled(spec.name)
                    if progress is not None:
                        progress(spec.name, done, total)

                generator.run(report)
                if paths is not None:
                    generator.ledger.save(paths[1])
            if not self.config.live_interval:
                # No live blocks from us: mine what users send, as a node would.
                rpc.call("evm_setAutomine", [True])
            return DevnetChain(spec, anvil, generator.ledger, generator)
        except BaseException:
            anvil.stop()
            raise

    def _live_loop(self) -> None:
        interval = self.config.live_interval or 3.0
        failing: set[str] = set()
        while not self._stopping.wait(interval):
            for chain in list(self):
                with self._lock:
                    if self._stopping.is_set():
                        return
                    try:
                        chain.generator.mine_live_block(self.config.live_txs)
                        failing.discard(chain.spec.name)
                    except Exception as exc:  # best effort: keep the devnet up, say it once
                        if chain.spec.name not in failing:
                            failing.add(chain.spec.name)
                            log.warning("live block on %s failed: %r", chain.spec.name, exc)

    def stop(self) -> None:
        self._stopping.set()
        if self._live is not None:
            self._live.join(30)
        with self._lock:
            if self.facade is not None:
                self.facade.stop()
            if self.node is not None:
                self.node.stop()
            for chain in self:
                paths = self._paths(chain.spec)
                if paths is not None:
                    chain.ledger.save(paths[1])
                chain.generator.rpc.close()
                chain.anvil.stop()  # SIGTERM: anvil dumps its state file first

    def __iter__(self) -> Iterator[DevnetChain]:
        return iter(list(self.chains.values()))

    def __enter__(self) -> Devnet:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The facade's base URL, like a node's http://127.0.0.1:9650."""
        assert self.facade is not None, "not started"
        return self.facade.url

    @property
    def chains_file(self) -> Path:
        """Where a devnet with a data dir writes its chains file (devnet/chains_file.py)."""
        assert self.config.data_dir is not None, "no data dir"
        return self.config.data_dir / "chains.toml"

    @property
    def rpc_urls(self) -> dict[str, str]:
        """Chain name -> JSON-RPC URL through the facade."""
        return {name: chain.rpc_url for name, chain in self.chains.items()}

    @property
    def anvil_urls(self) -> dict[str, str]:
        """Chain name -> the anvil's own JSON-RPC URL (no facade in between)."""
        return {name: chain.anvil.rpc_url for name, chain in self.chains.items()}
