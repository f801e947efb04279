"""One builder per kind of transaction the traffic generator sends (see ledger.KINDS).

Stage: devnet. Pure: reads and updates the World mirror, returns eth_sendTransaction
parameters; traffic.py sends them. A builder returns None when the state offers nothing valid
to do (no holder yet, say); the caller then sends a native transfer instead.

Gas limits are fixed per kind and generous (no eth_estimateGas round trip per transaction);
the node charges only what is used. With a fixed limit the node also includes transactions
that revert, which is what the revert_* kinds want.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from avadata.devnet.evm.artifacts import calldata
from avadata.devnet.evm.chain_mirror import PendingTx, World
from avadata.devnet.evm.creations import CreationActions
from avadata.devnet.evm.txbuilder import ETHER, GWEI

__all__ = ["ETHER", "GWEI", "MULTI_IDS", "WEIGHTS", "Actions"]

# Relative frequency of each kind in the traffic phase (setup kinds are sent by traffic.py).
# anvil recomputes its whole state root at every block, so the generator's speed is bound by
# the number of storage slots alive: kinds that create slots (creations, mints, approvals of
# new pairs, ERC-1155 ids) stay rare, about a mainnet's share.
WEIGHTS: dict[str, float] = {
    "native": 41,
    "erc20_transfer": 14,
    "erc20_approve": 1,
    "erc20_transfer_from": 2,
    "erc20_mint": 2,
    "old_token_mint": 1,
    "old_token_transfer": 4,
    "nft_mint": 3,
    "nft_transfer": 3,
    "nft_safe_transfer": 3,
    "erc1155_mint": 2,
    "erc1155_mint_batch": 1,
    "erc1155_single": 4,
    "erc1155_batch": 3,
    "split": 4,
    "relay": 1,
    "factory_create": 0.5,
    "factory_create2": 0.3,
    "factory_nested": 0.15,
    "factory_token": 0.1,
    "deploy_child": 0.15,
    "deploy_token": 0.1,
    "child_ping": 1,
    "revert_split": 0.8,
    "revert_erc20": 0.6,
    "revert_nft": 0.4,
    "revert_create2": 0.2,
}
MULTI_IDS = range(1, 9)  # ERC-1155 ids in use


class Actions(CreationActions):
    """Every traffic kind's builder, by kind name (the method of the same name)."""

    def __init__(self, rng: random.Random, world: World, roles: dict[str, str]) -> None:
        super().__init__(rng, world, roles)
        self._builders: dict[str, Callable[[], PendingTx | None]] = {
            k: getattr(self, k) for k in WEIGHTS
        }
        self._kinds = list(WEIGHTS)
        self._weights = list(WEIGHTS.values())

    def random_kind(self) -> str:
        return self.rng.choices(self._kinds, self._weights)[0]

    def build(self, kind: str) -> PendingTx:
        """A transaction of `kind`, or a native transfer when `kind` has nothing to act on."""
        return self._builders[kind]() or self.native()

    # -- native value -----------------------------------------------------------------------

    def native(self) -> PendingTx:
        to = self.world.next_native_recipient(self.rng)
        sender = self.other_user(to)
        value = self.rng.randrange(1, ETHER)
        return self.tx(sender, to, "native", 21_000, value=value)

    def _recipients(self, low: int, high: int) -> list[str]:
        return self.rng.sample(self.world.users, self.rng.randint(low, high))

    def split(self) -> PendingTx:
        recipients = self._recipients(2, 5)
        data = calldata("split(address[])", recipients)
        value = self.rng.randrange(10**15, 5 * ETHER)
        gas = 60_000 + 40_000 * len(recipients)
        return self.tx(self.user(), self.roles["splitter"], "split", gas, data, value)

    def relay(self) -> PendingTx:
        recipients = self._recipients(2, 4)
        data = calldata("relay(address,address[])", self.roles["splitter2"], recipients)
        value = self.rng.randrange(10**15, ETHER)
        gas = 100_000 + 40_000 * len(recipients)
        return self.tx(self.user(), self.roles["splitter"], "relay", gas, data, value)

    def revert_split(self) -> PendingTx:
        recipients = self._recipients(2, 3)
        data = calldata("failAfterSplit(address[])", recipients)
        gas = 60_000 + 40_000 * len(recipients)
        value = self.rng.randrange(10**15, ETHER)
        return self.tx(self.user(), self.roles["splitter"], "revert_split", gas, data, value)

    # -- ERC-20 -----------------------------------------------------------------------------

    def _token(self) -> str:
        return self.roles[self.rng.choice(("token", "token", "token6"))]

    def erc20_transfer(self) -> PendingTx | None:
        token = self._token()
        sender = self.world.balances.pick_holder(self.rng, token)
        if sender is None:
            return None
        return self._send_tokens(token, sender, "erc20_transfer", 3)

    def _send_tokens(self, token: str, sender: str, kind: str, share: int) -> PendingTx:
        """`transfer(to, amount)` of at most 1/share of what `sender` can still spend."""
        to = self.other_user(sender)
        amount = self.rng.randint(1, max(1, self.world.balances.available(token, sender) // share))
        data = calldata("transfer(address,uint256)", to, amount)
        pending = self.tx(sender, token, kind, 70_000, data)
        self.world.balances.debit(token, sender, amount)
        self.world.balances.credit_later(pending, token, to, amount)
        return pending

    def erc20_approve(self) -> PendingTx | None:
        token = self._token()
        owner = self.world.balances.pick_holder(self.rng, token)
        if owner is None:
            return None
        spender = self.other_user(owner)
        key = (token, owner, spender)
        if key in self.world.allowance_locked:
            return None
        amount = self.rng.choice((2**256 - 1, self.world.balances.available(token, owner)))
        data = calldata("approve(address,uint256)", spender, amount)
        pending = self.tx(owner, token, "erc20_approve", 60_000, data)
        self.world.set_allowance_later(pending, key, amount)
        return pending

    def erc20_transfer_from(self) -> PendingTx | None:
        w = self.world
        if not w.allowance_keys:
            return None
        key = self.rng.choice(w.allowance_keys)
        token, owner, spender = key
        allowed = w.allowances[key]
        have = w.balances.available(token, owner)
        if key in w.allowance_locked or allowed == 0 or have == 0:
            return None
        amount = self.rng.randint(1, min(allowed, have))
        to = self.other_user(owner)
        data = calldata("transferFrom(address,address,uint256)", owner, to, amount)
        pending = self.tx(spender, token, "erc20_transfer_from", 80_000, data)
        w.balances.debit(token, owner, amount)
        w.balances.credit_later(pending, token, to, amount)
        if allowed != 2**256 - 1:
            w.allowances[key] = allowed - amount
        w.allowance_locked.add(key)
        return pending

    def erc20_mint(self) -> PendingTx:
        token = self._token()
        to = self.user()
        amount = self.rng.randrange(1, 10**24)
        pending = self.tx(
            to, token, "erc20_mint", 80_000, calldata("mint(address,uint256)", to, amount)
        )
        self.world.balances.credit_later(pending, token, to, amount)
        return pending

    def revert_erc20(self) -> PendingTx:
        token = self._token()
        sender = self.user()
        # More than any balance can be (all mints together stay far below 2**200), even if
        # the sender receives tokens earlier in the same block.
        too_much = 2**200 + self.rng.randrange(10**30)
        data = calldata("transfer(address,uint256)", self.other_user(sender), too_much)
        return self.tx(sender, token, "revert_erc20", 70_000, data)

    def old_token_mint(self) -> PendingTx:
        token = self.roles["old_token"]
        to = self.user()
        amount = self.rng.randrange(1, 10**22)
        data = calldata("mint(address,uint256)", to, amount)
        pending = self.tx(self.user(), token, "old_token_mint", 80_000, data)
        self.world.balances.credit_later(pending, token, to, amount)
        return pending

    def old_token_transfer(self) -> PendingTx | None:
        token = self.roles["old_token"]
        sender = self.world.balances.pick_holder(self.rng, token)
        if sender is None:
            return self.old_token_mint()
        return self._send_tokens(token, sender, "old_token_transfer", 2)

    # -- ERC-721 ----------------------------------------------------------------------------

    def nft_mint(self) -> PendingTx:
        to = self.user()
        token_id = self.world.nft_next
        self.world.nft_next += 1
        data = calldata("mint(address)", to)
        pending = self.tx(self.user(), self.roles["collectible"], "nft_mint", 120_000, data)
        self.world.move_nft_later(pending, token_id, to)
        return pending

    def _movable_nft(self) -> tuple[int, str] | None:
        w = self.world
        for _ in range(8):
            if not w.nft_ids:
                return None
            token_id = self.rng.choice(w.nft_ids)
            if token_id not in w.nft_locked:
                return token_id, w.nft_owner[token_id]
        return None

    def _nft_move(self, kind: str, signature: str) -> PendingTx | None:
        found = self._movable_nft()
        if found is None:
            return None
        token_id, owner = found
        to = self.other_user(owner)
        data = calldata(signature, owner, to, token_id)
        pending = self.tx(owner, self.roles["collectible"], kind, 100_000, data)
        self.world.move_nft_later(pending, token_id, to)
        return pending

    def nft_transfer(self) -> PendingTx | None:
        return self._nft_move("nft_transfer", "transferFrom(address,address,uint256)")

    def nft_safe_transfer(self) -> PendingTx | None:
        return self._nft_move("nft_safe_transfer", "safeTransferFrom(address,address,uint256)")

    def revert_nft(self) -> PendingTx | None:
        found = self._movable_nft()
        if found is None:
            return None
        token_id, owner = found
        thief = self.other_user(owner)
        data = calldata("transferFrom(address,address,uint256)", owner, thief, token_id)
        return self.tx(thief, self.roles["collectible"], "revert_nft", 100_000, data)

    # -- ERC-1155 ---------------------------------------------------------------------------

    def _multi_asset(self, token_id: int) -> str:
        return f"1155:{token_id}"

    def erc1155_mint(self) -> PendingTx:
        to, token_id = self.user(), self.rng.choice(MULTI_IDS)
        amount = self.rng.randint(1, 1000)
        data = calldata("mint(address,uint256,uint256)", to, token_id, amount)
        pending = self.tx(self.user(), self.roles["multi"], "erc1155_mint", 90_000, data)
        self.world.balances.credit_later(pending, self._multi_asset(token_id), to, amount)
        return pending

    def erc1155_mint_batch(self) -> PendingTx:
        to = self.user()
        ids = sorted(self.rng.sample(MULTI_IDS, self.rng.randint(2, 4)))
        amounts = [self.rng.randint(1, 500) for _ in ids]
        data = calldata("mintBatch(address,uint256[],uint256[])", to, ids, amounts)
        gas = 60_000 + 30_000 * len(ids)
        pending = self.tx(self.user(), self.roles["multi"], "erc1155_mint_batch", gas, data)
        for token_id, amount in zip(ids, amounts, strict=True):
            self.world.balances.credit_later(pending, self._multi_asset(token_id), to, amount)
        return pending

    def erc1155_single(self) -> PendingTx | None:
        token_id = self.rng.choice(MULTI_IDS)
        asset = self._multi_asset(token_id)
        sender = self.world.balances.pick_holder(self.rng, asset)
        if sender is None:
            return None
        to = self.other_user(sender)
        amount = self.rng.randint(1, self.world.balances.available(asset, sender))
        data = calldata(
            "safeTransferFrom(address,address,uint256,uint256,bytes)",
            sender,
            to,
            token_id,
            amount,
            b"",
        )
        pending = self.tx(sender, self.roles["multi"], "erc1155_single", 90_000, data)
        self.world.balances.debit(asset, sender, amount)
        self.world.balances.credit_later(pending, asset, to, amount)
        return pending

    def erc1155_batch(self) -> PendingTx | None:
        first = self.rng.choice(MULTI_IDS)
        sender = self.world.balances.pick_holder(self.rng, self._multi_asset(first))
        if sender is None:
            return None
        ids = [i for i in MULTI_IDS if self.world.balances.available(self._multi_asset(i), sender)][
            :4
        ]
        if len(ids) < 2 and self.rng.random() < 0.7:
            return None  # a batch of one happens on mainnet too, but keep it rare
        to = self.other_user(sender)
        amounts = []
        for token_id in ids:
            asset = self._multi_asset(token_id)
            amount = self.rng.randint(1, self.world.balances.available(asset, sender))
            amounts.append(amount)
        data = calldata(
            "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
            sender,
            to,
            ids,
            amounts,
            b"",
        )
        gas = 70_000 + 40_000 * len(ids)
        pending = self.tx(sender, self.roles["multi"], "erc1155_batch", gas, data)
        for token_id, amount in zip(ids, amounts, strict=True):
            asset = self._multi_asset(token_id)
            self.world.balances.debit(asset, sender, amount)
            self.world.balances.credit_later(pending, asset, to, amount)
        return pending
