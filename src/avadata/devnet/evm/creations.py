"""Builders of contract creations and of calls to created contracts (see ledger.KINDS).

Stage: devnet. Pure, like actions.py. Every creation is recorded with the address it will have,
computed here independently of the node: CREATE from (creator, nonce), CREATE2 from
(factory, salt, init code); the tests then find code at each address on the node.
"""

from __future__ import annotations

import random

from eth_abi.abi import encode

from avadata.devnet.evm.artifacts import (
    bytecode,
    calldata,
    create2_address,
    create_address,
    deploy_data,
)
from avadata.devnet.evm.chain_mirror import PendingTx, World
from avadata.devnet.evm.ledger import ContractRecord
from avadata.devnet.evm.txbuilder import ETHER, TxBuilder


class CreationActions(TxBuilder):
    def __init__(self, rng: random.Random, world: World, roles: dict[str, str]) -> None:
        super().__init__(rng, world, roles)
        self._salt_tags: dict[bytes, int] = {}  # CREATE2 salt -> the tag it was used with

    def _record(
        self,
        pending: PendingTx,
        address: str,
        name: str,
        factory: str | None,
        create2: bool = False,
    ) -> None:
        record = ContractRecord(
            address=address,
            name=name,
            deployer=pending.params["from"],
            factory=factory,
            create2=create2,
            tx_hash="",
            block=-1,
        )
        pending.creates.append(record)

    def _factory_child(self, pending: PendingTx) -> str:
        factory = self.roles["factory"]
        child = create_address(factory, self.world.factory_nonce)
        self.world.factory_nonce += 1
        self._record(pending, child, "Child", factory)
        return child

    def factory_create(self) -> PendingTx:
        tag = self.rng.randrange(2**32)
        value = self.rng.choice((0, 0, self.rng.randrange(1, ETHER)))
        data = calldata("create(uint256)", tag)
        pending = self.tx(
            self.user(), self.roles["factory"], "factory_create", 300_000, data, value
        )
        child = self._factory_child(pending)
        pending.on_mined.append(lambda: self.world.children.append(child))
        return pending

    def factory_create2(self) -> PendingTx:
        factory = self.roles["factory"]
        salt = self.rng.getrandbits(256).to_bytes(32, "big")
        tag = self.rng.randrange(2**32)
        data = calldata("create2(bytes32,uint256)", salt, tag)
        pending = self.tx(self.user(), factory, "factory_create2", 300_000, data)
        init_code = bytecode("Child") + encode(["uint256"], [tag])
        child = create2_address(factory, salt, init_code)
        self.world.factory_nonce += 1  # CREATE2 bumps the creator's nonce as CREATE does
        self._record(pending, child, "Child", factory, create2=True)
        pending.on_mined.append(lambda: self.world.used_salts.append(salt))
        pending.on_mined.append(lambda: self.world.children.append(child))
        # The collision case needs the same tag too: the init code (hence address) must match.
        self._salt_tags[salt] = tag
        return pending

    def revert_create2(self) -> PendingTx | None:
        if not self.world.used_salts:
            return None
        salt = self.rng.choice(self.world.used_salts)
        data = calldata("create2(bytes32,uint256)", salt, self._salt_tags[salt])
        return self.tx(self.user(), self.roles["factory"], "revert_create2", 300_000, data)

    def factory_nested(self) -> PendingTx:
        data = calldata("createNested(uint256)", self.rng.randrange(2**32))
        pending = self.tx(self.user(), self.roles["factory"], "factory_nested", 450_000, data)
        child = self._factory_child(pending)
        # A fresh Child has nonce 1; its first CREATE makes the Leaf.
        self._record(pending, create_address(child, 1), "Leaf", child)
        pending.on_mined.append(lambda: self.world.children.append(child))
        return pending

    def factory_token(self) -> PendingTx:
        n = self.rng.randrange(1000)
        data = calldata(
            "createToken(string,string,uint8)",
            f"Factory Token {n}",
            f"FT{n}",
            self.rng.choice((6, 8, 18)),
        )
        pending = self.tx(self.user(), self.roles["factory"], "factory_token", 1_600_000, data)
        factory = self.roles["factory"]
        token = create_address(factory, self.world.factory_nonce)
        self.world.factory_nonce += 1
        self._record(pending, token, "Token", factory)
        return pending

    def deploy_child(self) -> PendingTx:
        sender = self.user()
        address = create_address(sender, self.world.nonces[sender])
        data = deploy_data("Child", ["uint256"], [self.rng.randrange(2**32)])
        pending = self.tx(sender, None, "deploy_child", 300_000, data)
        self._record(pending, address, "Child", None)
        return pending

    def deploy_token(self) -> PendingTx:
        sender = self.user()
        address = create_address(sender, self.world.nonces[sender])
        n = self.rng.randrange(1000)
        data = deploy_data(
            "Token", ["string", "string", "uint8"], [f"User Token {n}", f"UT{n}", 18]
        )
        pending = self.tx(sender, None, "deploy_token", 1_500_000, data)
        self._record(pending, address, "Token", None)
        return pending

    def child_ping(self) -> PendingTx | None:
        if not self.world.children:
            return None
        child = self.rng.choice(self.world.children)
        return self.tx(self.user(), child, "child_ping", 60_000, calldata("ping()"))
