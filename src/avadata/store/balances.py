"""Token balances derived from a batch's transfers: ERC-20 and ERC-1155 histories, ERC-721 owners.

Stage: store; called by `writer.py` inside the batch's transaction.

Invariants:
- a history row holds the balance *after* its block; the balance at block B is the row with
  the greatest block_number <= B, and 0 when there is none;
- a batch's rows derive from its own transfers plus the latest row *before* its first block,
  so replaying a batch recomputes exactly the stored rows (then ignored as duplicates);
- the zero address is where mints come from and burns go: never a holder;
- sums happen in Python ints: exact for uint256, on both engines.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, Table, tuple_

from avadata.records import TokenTransfer
from avadata.store import dialect
from avadata.store.batch_cache import Carried
from avadata.store.rows import ERC20_BALANCE_COLUMNS, ERC1155_BALANCE_COLUMNS
from avadata.store.schema import erc20_balances, erc721_owners, erc1155_balances

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"


def balance_history(
    transfers: Sequence[TokenTransfer],
    key_of: Callable[[TokenTransfer, str], Hashable],
    prior: Callable[[list[Any]], dict[Any, int]],
) -> dict[tuple[Any, int], int]:
    """{(key, block): balance after that block} for every block in which a key was touched.

    `transfers` are in position order; `prior(keys)` gives each key's balance before them,
    in a dict the running sums then update in place (`batch_cache.Carried` keeps it for the
    next batch).
    """
    deltas: list[tuple[int, Any, int]] = []
    for t in transfers:
        if t.from_address != ZERO_ADDRESS:
            deltas.append((t.block_number, key_of(t, t.from_address), -t.value))
        if t.to_address != ZERO_ADDRESS:
            deltas.append((t.block_number, key_of(t, t.to_address), t.value))
    running = prior(list(dict.fromkeys(k for _, k, _ in deltas)))
    out: dict[tuple[Any, int], int] = {}
    for block, key, delta in deltas:
        bal = running.get(key, 0) + delta
        running[key] = bal
        out[(key, block)] = bal  # the last write per (key, block) is the end-of-block balance
    return out


def prior_balances(
    conn: Connection,
    table: Table,
    key_cols: tuple[str, ...],
    chain_id: int,
    first_block: int,
    keys: list[tuple[Any, ...]],
) -> dict[tuple[Any, ...], int]:
    """Latest stored balance strictly before `first_block` for each key (absent: never held)."""
    found = dialect.latest_before(conn, table, key_cols, "balance", chain_id, first_block, keys)
    return {k: int(v) for k, v in found.items()}


class HistoryTable(NamedTuple):
    """A balance history table: its columns (key columns, then block and balance), its key
    columns, and a transfer's key for one of its two holders."""

    table: Table
    columns: tuple[str, ...]
    key_cols: tuple[str, ...]
    key_of: Callable[[TokenTransfer, str], tuple[Any, ...]]


ERC20_HISTORY = HistoryTable(
    erc20_balances, ERC20_BALANCE_COLUMNS, ("token", "holder"), lambda t, h: (t.token, h)
)
ERC1155_HISTORY = HistoryTable(
    erc1155_balances,
    ERC1155_BALANCE_COLUMNS,
    ("token", "token_id", "holder"),
    lambda t, h: (t.token, t.token_id, h),
)


def history_rows(
    conn: Connection,
    spec: HistoryTable,
    chain_id: int,
    first_block: int,
    transfers: Sequence[TokenTransfer],
    carried: Carried | None = None,
) -> list[tuple[Any, ...]]:
    """A balance table's rows (in `spec.columns` order) from `transfers` (ERC-20 ones for
    ERC20_HISTORY, ERC-1155 ones for ERC1155_HISTORY), its priors from `carried` where it holds
    them. Computed once per batch, apart from their write: `carried` moves on here, so a write
    that is retried (`dialect.write_new_rows`) must not compute them again."""
    table = spec.table

    def load(keys: list[Any]) -> dict[Any, int]:
        return prior_balances(conn, table, spec.key_cols, chain_id, first_block, keys)

    hist = balance_history(
        transfers,
        spec.key_of,
        load if carried is None else (lambda keys: carried.prior(chain_id, table.name, keys, load)),
    )
    if carried is not None:
        carried.done(chain_id, table.name)
    return [(chain_id, *key, block, v) for (key, block), v in hist.items()]


def write_erc721_owners(
    conn: Connection, chain_id: int, transfers: Sequence[TokenTransfer]
) -> None:
    """Upsert each token's owner from its last transfer in the batch, guarded by position."""
    latest: dict[tuple[str, int], TokenTransfer] = {}
    for t in transfers:  # position order: the last one per token wins
        if t.token_id is not None:
            latest[(t.token, t.token_id)] = t
    if not latest:
        return
    conn.execute(
        _owners_upsert(conn),
        [
            {
                "chain_id": chain_id,
                "token": tok,
                "token_id": tid,
                "owner": t.to_address,
                "block_number": t.block_number,
                "log_index": t.log_index,
                "batch_index": t.batch_index,
            }
            for (tok, tid), t in latest.items()
        ],
    )


_OWNED = erc721_owners.c
_owners_upsert = dialect.upsert_once(
    erc721_owners,
    keys=("chain_id", "token", "token_id"),
    set_=lambda ex: {
        "owner": ex.owner,
        "block_number": ex.block_number,
        "log_index": ex.log_index,
        "batch_index": ex.batch_index,
    },
    # The replay guard: only a strictly later transfer may change the owner.
    where=lambda ex: (
        tuple_(ex.block_number, ex.log_index, ex.batch_index)
        > tuple_(_OWNED.block_number, _OWNED.log_index, _OWNED.batch_index)
    ),
)
