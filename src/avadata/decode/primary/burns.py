"""What a primary-network tx burns: per asset, all it consumes minus all it creates, and the
nAVAX it moves into L1 validators' pay-as-you-go balances (not burned by the tx itself: the
continuous fee burns it later, the rest is refunded).

Stage: decode, pure. Every input and output carries its amount, so the tx alone tells: base
and imported inputs (C-chain export: its EVM inputs) against base, exported and stake
outputs (C-chain import: its EVM outputs); X-chain operations' and asset creations' outputs
mint, which is not a burn, so they are not counted either side.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from avadata.decode.codec.ids import cb58_encode
from avadata.decode.codec.pchain import (
    ConvertSubnetToL1Tx,
    IncreaseL1ValidatorBalanceTx,
    RegisterL1ValidatorTx,
)


def _amount(io: Any) -> int:
    """The amount of a transferable input or output, through a stakeable lock."""
    while not hasattr(io, "amount"):
        io = getattr(io, "output", None) or getattr(io, "input", None)
        if io is None:
            return 0
    return int(io.amount)


def _sum(into: dict[str, int], items: Iterable[Any], inner: str | None, sign: int) -> None:
    for item in items:
        into[cb58_encode(item.asset_id)] += sign * _amount(getattr(item, inner) if inner else item)


def l1_deposit(unsigned: Any) -> int:
    """nAVAX the tx puts into L1 validator balances."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        return sum(int(v.balance) for v in unsigned.validators)
    if isinstance(unsigned, RegisterL1ValidatorTx | IncreaseL1ValidatorBalanceTx):
        return int(unsigned.balance)
    return 0


def burned(unsigned: Any) -> dict[str, int]:
    """Asset ID -> amount the tx consumed and did not create again (its fee; an L1 deposit
    counts as consumed here: the caller subtracts `l1_deposit`). Assets it gains (a mint)
    are left out."""
    flow: dict[str, int] = defaultdict(int)
    base = getattr(unsigned, "base", None)
    _sum(flow, getattr(base, "inputs", ()), "input", 1)
    _sum(flow, getattr(unsigned, "imported_inputs", ()), "input", 1)
    _sum(flow, getattr(base, "outputs", ()), "output", -1)
    _sum(flow, getattr(unsigned, "exported_outputs", ()), "output", -1)
    _sum(flow, getattr(unsigned, "stake_outputs", ()), "output", -1)
    # C-chain atomic txs: EVM inputs are consumed, EVM outputs created (plain amounts).
    if base is None:
        _sum(flow, getattr(unsigned, "inputs", ()), None, 1)
        _sum(flow, getattr(unsigned, "outputs", ()), None, -1)
    return {a: v for a, v in sorted(flow.items()) if v > 0}
