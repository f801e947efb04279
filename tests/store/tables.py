"""Dump the store's tables for comparisons between runs (rows ordered by primary key)."""

from __future__ import annotations

from sqlalchemy import Engine, select

from avadata.store.schema import (
    chains,
    contracts,
    cursors,
    erc20_balances,
    erc721_owners,
    erc1155_balances,
    evm_blocks,
    evm_logs,
    evm_tx_inputs,
    evm_txs,
    internal_call_participants,
    internal_calls,
    native_balances,
    nft_tokens,
    token_transfers,
    tokens,
    transfer_participants,
)

EVM_TABLES = (
    chains,
    cursors,
    evm_blocks,
    evm_txs,
    evm_tx_inputs,
    evm_logs,
    token_transfers,
    transfer_participants,
    internal_calls,
    internal_call_participants,
    contracts,
    tokens,
    erc20_balances,
    erc1155_balances,
    erc721_owners,
    nft_tokens,
    native_balances,
)


def dump(engine: Engine) -> dict[str, list[tuple]]:
    out = {}
    with engine.connect() as conn:
        for t in EVM_TABLES:
            pk = list(t.primary_key.columns)
            out[t.name] = [tuple(r) for r in conn.execute(select(t).order_by(*pk))]
    return out
