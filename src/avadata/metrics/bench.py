"""`avadata metrics bench`: rollup cost while writing, and metric request latency.

Stage: metrics (a tool, not a test). Writes a synthetic chain spanning `days` days (blocks
every `block_s` seconds, `txs` transactions from a pool of `accounts` addresses, some ERC-20
transfers and contract creations) through the real store writer with the real applier, timing
the applier's share of the write; then times metric requests (hourly pages of 2,160 points,
daily series, aggregates) through the real app. Figures go to docs/benchmarks.md by hand.

The share is of the *write* only; real ingest also fetches and decodes from a node, so the
share of ingest time is lower than the figure printed here.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine

from avadata.metrics.applier import apply_metrics
from avadata.records import (
    Block,
    CallType,
    ContractCreation,
    EvmBatch,
    TokenStandard,
    TokenTransfer,
    Transaction,
)
from avadata.store.writer import mark_chain, write_evm_batch

T0 = 1_735_689_600  # 2025-01-01T00:00:00Z


@dataclass(slots=True)
class WriteFigures:
    txs: int = 0
    blocks: int = 0
    write_s: float = 0.0
    rollup_s: float = 0.0

    @property
    def share(self) -> float:
        return self.rollup_s / self.write_s if self.write_s else 0.0


@dataclass(slots=True)
class LatencyFigures:
    samples_ms: dict[str, list[float]] = field(default_factory=dict)

    def summary(self) -> dict[str, tuple[float, float]]:
        out = {}
        for name, xs in self.samples_ms.items():
            ys = sorted(xs)
            out[name] = (statistics.median(ys), ys[min(len(ys) - 1, int(len(ys) * 0.99))])
        return out


def _addr(n: int) -> str:
    return f"0x{n:040x}"


def _hash(*parts: int) -> str:
    return "0x" + "".join(f"{p:016x}" for p in parts).rjust(64, "0")[-64:]


def batches(
    chain_id: int, *, txs: int, days: int, accounts: int, chunk: int, seed: int = 1
) -> list[EvmBatch]:
    """The synthetic chain as writer batches of `chunk` blocks."""
    rnd = random.Random(seed)
    # About 20 transactions a block, at least two blocks an hour: every hourly bucket is filled.
    n_blocks = max(2, days * 48, txs // 20)
    step = days * 86_400 / n_blocks
    per_block = txs / n_blocks
    out: list[EvmBatch] = []
    made = 0
    ts = T0
    for number in range(n_blocks):
        if number % chunk == 0:
            out.append(EvmBatch(chain_id=chain_id, first_block=number, last_block=number))
        b = out[-1]
        b.last_block = number
        # Jittered spacing; now and then two blocks share a second.
        ts = (
            T0
            + int(number * step)
            + (0 if rnd.random() < 0.05 else rnd.randrange(max(1, int(step // 2))))
        )
        ts = max(ts, out[-1].blocks[-1].timestamp if out[-1].blocks else ts)
        count = int(per_block * (number + 1)) - made
        made += count
        bh = _hash(chain_id, number, 1)
        gas = 0
        for i in range(count):
            sender = _addr(1 + int(rnd.paretovariate(1.2)) % accounts)
            to = _addr(1 + rnd.randrange(accounts))
            th = _hash(chain_id, number, i, 2)
            create = rnd.random() < 0.005
            b.transactions.append(
                Transaction(
                    chain_id=chain_id,
                    block_number=number,
                    block_hash=bh,
                    block_timestamp=ts,
                    tx_index=i,
                    hash=th,
                    from_address=sender,
                    to_address=None if create else to,
                    value=0,
                    gas_limit=100_000,
                    gas_price=25 * 10**9 + rnd.randrange(10**9),
                    gas_used=21_000,
                    nonce=0,
                    tx_type=2,
                    success=True,
                    call_type=CallType.CONTRACT_CREATION if create else CallType.NATIVE_TRANSFER,
                    method_hash="",
                    method_name=None,
                    contract_address=_addr(2**150 + number * 1000 + i) if create else None,
                )
            )
            gas += 21_000
            if create:
                b.contracts.append(
                    ContractCreation(
                        chain_id,
                        _addr(2**150 + number * 1000 + i),
                        number,
                        ts,
                        i,
                        0,
                        th,
                        sender,
                        None,
                        "CREATE",
                    )
                )
            elif rnd.random() < 0.1:
                b.transfers.append(
                    TokenTransfer(
                        chain_id,
                        number,
                        bh,
                        ts,
                        i,
                        th,
                        i,
                        0,
                        _addr(2**140),
                        TokenStandard.ERC20,
                        to,
                        _addr(1 + rnd.randrange(accounts)),
                        None,
                        1,
                    )
                )
        b.blocks.append(
            Block(
                chain_id,
                number,
                bh,
                _hash(chain_id, number - 1, 1),
                ts,
                gas,
                30_000_000,
                None,
                count,
                _addr(0),
                gas * 25 * 10**9,
            )
        )
    return out


def write(engine: Engine, chain_id: int, parts: list[EvmBatch]) -> WriteFigures:
    """Write `parts` with the applier, timing the applier inside each transaction."""
    figures = WriteFigures()
    mark_chain(engine, chain_id, network="mainnet", name="bench")

    def timed(conn: Connection, batch: EvmBatch) -> None:
        t = time.perf_counter()
        apply_metrics(conn, batch)
        figures.rollup_s += time.perf_counter() - t

    t0 = time.perf_counter()
    for b in parts:
        write_evm_batch(engine, b, appliers=[timed])
        figures.blocks += len(b.blocks)
        figures.txs += len(b.transactions)
    figures.write_s = time.perf_counter() - t0
    return figures


def latency(
    get: Callable[[str, dict[str, str | int]], int], chain_id: int, rounds: int
) -> LatencyFigures:
    """Time metric requests; `get(path, params)` returns the HTTP status."""
    cases: dict[str, tuple[str, dict[str, str | int]]] = {
        "txCount hour x2160": ("txCount", {"timeInterval": "hour", "pageSize": 2160}),
        "activeAddresses hour x2160": (
            "activeAddresses",
            {"timeInterval": "hour", "pageSize": 2160},
        ),
        "activeAddresses day x365": ("activeAddresses", {"timeInterval": "day", "pageSize": 365}),
        "cumulativeAddresses day x100": ("cumulativeAddresses", {"timeInterval": "day"}),
        "avgTps day x365": ("avgTps", {"timeInterval": "day", "pageSize": 365}),
        "activeAddresses week": ("activeAddresses", {"timeInterval": "week"}),
        "feesPaid day x100": ("feesPaid", {"timeInterval": "day"}),
    }
    out = LatencyFigures()
    for name, (metric, params) in cases.items():
        xs = out.samples_ms.setdefault(name, [])
        for _ in range(rounds):
            t = time.perf_counter()
            status = get(f"/v2/chains/{chain_id}/metrics/{metric}", params)
            xs.append((time.perf_counter() - t) * 1000)
            if status != 200:
                raise RuntimeError(f"{name}: HTTP {status}")
    return out
