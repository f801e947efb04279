"""Reads of `metric_sums`: the additive per-bucket sums behind txCount, gasUsed, feesPaid,
contracts, gas prices and the rates, for one chain or merged over an aggregate's chains.

Stage: metrics (reads only). Hot pages (2,160 hourly rows) are read as driver SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import MetricName
from avadata.metrics.sqlfast import mark
from avadata.store.schema import metric_sums

Number = int | float
# JSON numbers past 2**63 do not fit orjson's integers (fees in wei can): send them as floats.
_MAX_EXACT = 2**63 - 1


@dataclass(frozen=True, slots=True)
class SumsRow:
    """One bucket's sums (only the columns a metric asked for are filled)."""

    blocks: int = 0
    txs: int = 0
    gas_used: int = 0
    fees: int = 0
    gas_price_sum: int = 0
    gas_price_max: int = 0
    contracts: int = 0
    first_ts: int | None = None
    last_ts: int | None = None
    max_tps: float = 0.0
    max_gps: float = 0.0


EMPTY = SumsRow()


def json_number(v: int) -> Number:
    return v if v <= _MAX_EXACT else float(v)


def _avg_gas_price(r: SumsRow) -> Number:
    return r.gas_price_sum / r.txs if r.txs else 0


# One bucket's value from its (chain-merged) sums.
VALUE: dict[MetricName, Callable[[SumsRow], Number]] = {
    MetricName.TX_COUNT: lambda r: r.txs,
    MetricName.GAS_USED: lambda r: json_number(r.gas_used),
    MetricName.FEES_PAID: lambda r: json_number(r.fees),
    MetricName.CONTRACTS: lambda r: r.contracts,
    MetricName.AVG_GAS_PRICE: _avg_gas_price,
    MetricName.MAX_GAS_PRICE: lambda r: json_number(r.gas_price_max),
    MetricName.MAX_TPS: lambda r: r.max_tps,
    MetricName.MAX_GPS: lambda r: r.max_gps,
}


def merge(per_chain: dict[int, dict[int, SumsRow]]) -> dict[int, SumsRow]:
    """Per-bucket sums over chains: additive fields add, maxima take the largest."""
    if len(per_chain) == 1:
        return next(iter(per_chain.values()))
    out: dict[int, SumsRow] = {}
    for rows in per_chain.values():
        for t, r in rows.items():
            o = out.get(t)
            out[t] = (
                r
                if o is None
                else SumsRow(
                    txs=o.txs + r.txs,
                    gas_used=o.gas_used + r.gas_used,
                    fees=o.fees + r.fees,
                    gas_price_sum=o.gas_price_sum + r.gas_price_sum,
                    gas_price_max=max(o.gas_price_max, r.gas_price_max),
                    contracts=o.contracts + r.contracts,
                    max_tps=max(o.max_tps, r.max_tps),
                    max_gps=max(o.max_gps, r.max_gps),
                )
            )
    return out


# The metric_sums columns each metric reads (a request never loads the others).
NEEDS: dict[MetricName, tuple[str, ...]] = {
    MetricName.TX_COUNT: ("txs",),
    MetricName.GAS_USED: ("gas_used",),
    MetricName.FEES_PAID: ("fees",),
    MetricName.CONTRACTS: ("contracts",),
    MetricName.AVG_GAS_PRICE: ("txs", "gas_price_sum"),
    MetricName.MAX_GAS_PRICE: ("gas_price_max",),
    MetricName.MAX_TPS: ("max_tps",),
    MetricName.MAX_GPS: ("max_gps",),
    MetricName.AVG_TPS: ("blocks", "txs", "first_ts", "last_ts"),
    MetricName.AVG_GPS: ("blocks", "gas_used", "first_ts", "last_ts"),
    MetricName.CUMULATIVE_TX_COUNT: ("txs",),
    MetricName.CUMULATIVE_CONTRACTS: ("contracts",),
}


U256_COLUMNS = frozenset({"fees", "gas_price_sum", "gas_price_max"})

# Metrics read from one column: (column, how chains combine). The fast path of hourly pages.
ONE_COLUMN: dict[MetricName, tuple[str, Callable[[Iterable[Number]], Number]]] = {
    MetricName.TX_COUNT: ("txs", sum),
    MetricName.GAS_USED: ("gas_used", sum),
    MetricName.FEES_PAID: ("fees", sum),
    MetricName.CONTRACTS: ("contracts", sum),
    MetricName.MAX_GAS_PRICE: ("gas_price_max", max),
    MetricName.MAX_TPS: ("max_tps", max),
    MetricName.MAX_GPS: ("max_gps", max),
}


def one_column(
    conn: Connection,
    chain_ids: tuple[int, ...],
    metric: MetricName,
    interval: Interval,
    oldest: int,
    newest: int,
    stamps: list[int],
) -> list[tuple[int, Number]]:
    column, combine = ONE_COLUMN[metric]
    big = column in U256_COLUMNS
    per_chain: list[dict[int, Number]] = []
    for chain_id in chain_ids:
        rows = select_rows(conn, chain_id, interval, oldest, newest, (column,))
        per_chain.append({int(r[0]): int(r[1]) if big else r[1] for r in rows})
    if len(per_chain) == 1:
        values = per_chain[0]
    else:
        values = {}
        for t in {t for d in per_chain for t in d}:
            values[t] = combine(d[t] for d in per_chain if t in d)
    zero: Number = 0.0 if column in ("max_tps", "max_gps") else 0
    if big:
        # Convert each stored value once (there are at most as many as stamps), then fill.
        values = {t: v if v <= _MAX_EXACT else float(v) for t, v in values.items()}
        zero = 0
    get = values.get
    return [(t, get(t, zero)) for t in stamps]


def select_rows(
    conn: Connection,
    chain_id: int,
    interval: Interval,
    oldest: int,
    newest: int,
    columns: tuple[str, ...],
) -> Sequence[Any]:
    """Rows (bucket, *columns) of a chain's buckets in [oldest, newest], as driver SQL: a page
    can be 2,160 rows and SQLAlchemy's per-row processing would be most of the request."""
    ph = mark(conn)
    cols = ", ".join(f'"{c}"' for c in columns)
    sql = (
        f'SELECT "bucket", {cols} FROM "{metric_sums.name}" '
        f'WHERE "chain_id" = {ph} AND "interval" = {ph} AND "bucket" BETWEEN {ph} AND {ph}'
    )
    return conn.exec_driver_sql(sql, (chain_id, interval.code, oldest, newest)).all()


def read_sums(
    conn: Connection,
    chain_id: int,
    interval: Interval,
    oldest: int,
    newest: int,
    columns: tuple[str, ...],
) -> dict[int, SumsRow]:
    """The `columns` of the chain's buckets in [oldest, newest]. U256 columns arrive as the
    engine stores them (text or NUMERIC) and become ints here, as coltypes.U256 would."""
    big = [i for i, c in enumerate(columns) if c in U256_COLUMNS]
    out: dict[int, SumsRow] = {}
    for r in select_rows(conn, chain_id, interval, oldest, newest, columns):
        values = list(r[1:])
        for i in big:
            values[i] = int(values[i])
        out[int(r[0])] = SumsRow(**dict(zip(columns, values, strict=True)))
    return out
