"""Plumbing shared by the transaction builders: fees, nonces, picking users.

Stage: devnet. Pure: no I/O (see actions.py for the builders themselves).
"""

from __future__ import annotations

import random
from typing import Any

from avadata.devnet.evm.chain_mirror import PendingTx, World

GWEI = 10**9
ETHER = 10**18


class TxBuilder:
    def __init__(self, rng: random.Random, world: World, roles: dict[str, str]) -> None:
        self.rng = rng
        self.world = world
        self.roles = roles
        self.base_fee = GWEI  # of the last mined block; the generator keeps it current

    def fees(self) -> dict[str, Any]:
        """Mostly EIP-1559, some legacy (type 0) and access-list (type 1) transactions.

        Prices follow the wallet rule max fee = 2 x base fee + tip, from the base fee of the
        last mined block: the next block's base fee rises at most 12.5%, so every
        transaction stays includable however full the blocks are.
        """
        r = self.rng.random()
        tip = self.rng.choice((1, 1, 2, 3)) * GWEI // 2
        cap = 2 * self.base_fee + tip
        if r < 0.12:
            return {"gasPrice": hex(cap)}
        if r < 0.15:
            return {"gasPrice": hex(cap), "accessList": []}
        return {"maxFeePerGas": hex(cap), "maxPriorityFeePerGas": hex(tip)}

    def tx(
        self,
        sender: str,
        to: str | None,
        kind: str,
        gas: int,
        data: str = "0x",
        value: int = 0,
    ) -> PendingTx:
        params: dict[str, Any] = {
            "from": sender,
            "gas": hex(gas),
            "nonce": hex(self.world.next_nonce(sender)),
            "value": hex(value),
            "data": data,
            **self.fees(),
        }
        if to is not None:
            params["to"] = to
        return PendingTx(params=params, kind=kind, gas=gas)

    def user(self) -> str:
        return self.rng.choice(self.world.users)

    def other_user(self, not_this: str) -> str:
        while True:
            user = self.user()
            if user != not_this:
                return user
