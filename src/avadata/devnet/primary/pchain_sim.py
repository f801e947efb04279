"""The P-chain simulator: signed platformvm txs in Banff blocks, wrapped by proposervm.

Stage: devnet. Builds each tx with the codec (`avadata.decode.codec`), signs it with the
keyring's secp256k1 keys (BLS proofs of possession and warp signatures for stakers and L1
validators), applies its effects to its own state (UTXO book, stakers, subnets, chains, L1
validators) and emits Index API containers. What to send, and when, is decided by
`simulator.PrimarySim`; this module only knows how.

Rules kept (avalanchego 1cf1fc3d): block times never decrease and never pass the next staker
end time before that staker is rewarded (a BanffProposalBlock at exactly its end time carrying a
RewardValidatorTx, then a BanffCommitBlock or, when the uptime rule says the node was not up
80% of the time, a BanffAbortBlock); returned stake and rewards are UTXOs of the staking tx
with indices after its base outputs (reward, then delegatee reward); exports get indices
after the base outputs; L1 refunds (weight 0, disable) get index len(outputs); the validation
ID of validator i of a ConvertSubnetToL1Tx is sha256(subnetID || u32 i) and of a
RegisterL1ValidatorTx sha256(its RegisterL1Validator message bytes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from avadata.decode.codec import api
from avadata.decode.codec.components import (
    OutputOwners,
    PChainOwner,
    ProofOfPossession,
    TransferOutput,
)
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.pchain import (
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    AddSubnetValidatorTx,
    BaseTx,
    ConvertSubnetToL1Tx,
    CreateChainTx,
    CreateSubnetTx,
    DisableL1ValidatorTx,
    ExportTx,
    ImportTx,
    IncreaseL1ValidatorBalanceTx,
    PChainTx,
    RegisterL1ValidatorTx,
    RemoveSubnetValidatorTx,
    RewardValidatorTx,
    SetL1ValidatorWeightTx,
    TransferSubnetOwnershipTx,
    Validator,
)
from avadata.decode.codec.pchain import (
    L1Validator as L1ValidatorSpec,
)
from avadata.decode.codec.pchain_blocks import (
    PCHAIN_TABLE,
    BanffAbortBlock,
    BanffCommitBlock,
    BanffProposalBlock,
    BanffStandardBlock,
)
from avadata.decode.codec.warp import (
    L1ValidatorWeight,
    RegisterL1Validator,
    encode_pchain_message,
)
from avadata.decode.primary.reward import potential_reward, split_delegation
from avadata.devnet.primary import uptime
from avadata.devnet.primary.containers import P_BLOCK, Container, ProposerChain, TxRecord
from avadata.devnet.primary.keys import Keyring, Node, SecpKey, derive
from avadata.devnet.primary.l1_config import EvmChainConfig
from avadata.devnet.primary.network_ids import (
    AVAX_ASSET_ID,
    NETWORK_ID,
    P_CHAIN_ID,
    PRIMARY_SUBNET_ID,
    SUBNET_EVM_VM_ID,
)
from avadata.devnet.primary.pchain_state import (
    Blockchain,
    L1Validator,
    PChainState,
    Staker,
    Subnet,
)
from avadata.devnet.primary.txkit import (
    Spend,
    auth,
    owners,
    sign_p,
    transfer,
)
from avadata.devnet.primary.utxo_book import Coin, SharedMemory, UtxoBook
from avadata.devnet.primary.utxo_chain import Skip, UtxoChain, UtxoChainSim
from avadata.devnet.primary.warp_signing import WarpSigner, sign_l1_message

FEE = 1_000_000  # 0.001 AVAX burned by ordinary txs
CREATE_FEE = 100_000_000  # 0.1 AVAX: subnet, chain and L1 conversion txs
REGISTER_EXPIRY = 3_600  # seconds after the block time; avalanchego allows up to 24 h


class PChainSim(UtxoChainSim[PChainTx]):
    CHAIN = UtxoChain(P_CHAIN_ID, "P", PCHAIN_TABLE, ImportTx, ExportTx, fee=FEE)

    def __init__(
        self, seed: int, keys: Keyring, shared: SharedMemory, records: list[TxRecord]
    ) -> None:
        super().__init__(seed, keys, shared, records)
        self.state = PChainState()
        genesis_block = derive(seed, "P-genesis-block")
        self.last_inner = genesis_block
        self.proposer = ProposerChain(parent=genesis_block)
        self.genesis_tx = derive(seed, "P-genesis-utxos")

    # -- genesis and time -----------------------------------------------------------------------

    def genesis(self, time: int, allocations: Sequence[tuple[bytes, int]], supply: int) -> None:
        """Genesis UTXOs (not in any indexed block) and the current supply."""
        self.state.time = time
        self.state.supply = supply
        self._genesis_coins(self.genesis_tx, allocations)

    def _now(self) -> int:
        return self.state.time

    def _sign(self, unsigned: Any, signers: Sequence[Sequence[SecpKey]]) -> PChainTx:
        return sign_p(unsigned, signers)

    def advance_to(self, t: int, clock: Callable[[int], int]) -> list[Container]:
        """Reward every staker ending at or before t (each at its own end time, which becomes
        the chain time), drop expired permissioned subnet validators, then set time to t.
        `clock(block_time)` gives each container's acceptance time (unix ns)."""
        if t < self.state.time:
            raise ValueError(f"P-chain time cannot go back from {self.state.time} to {t}")
        out: list[Container] = []
        while True:
            self._drop_expired_subnet_validators(t)
            staker = self.state.next_reward()
            if staker is None or staker.end > t:
                break
            self._drop_expired_subnet_validators(staker.end)
            out += self._reward(staker, clock(staker.end))
        self.state.time = t
        return out

    def _drop_expired_subnet_validators(self, t: int) -> None:
        for s in self.state.current_stakers("subnet_validator"):
            if s.end <= t:
                del self.state.stakers[s.tx_id]

    # -- blocks ---------------------------------------------------------------------------------

    def standard_block(self, t: int, txs: Sequence[PChainTx], accepted_ns: int) -> Container:
        """Call advance_to(t) first, then build the txs, then this."""
        if not txs:
            raise ValueError("a standard block needs at least one tx")
        height = self.state.height + 1
        block = BanffStandardBlock(t, self.last_inner, height, tuple(txs))
        return self._emit(block, t, height, accepted_ns, txs)

    def _emit(
        self,
        block: Any,
        t: int,
        height: int,
        accepted_ns: int,
        txs: Sequence[PChainTx],
        option: bool = False,
    ) -> Container:
        inner = api.encode_p_block(block)
        if option:
            container_id, raw = self.proposer.wrap_option(inner)
        else:
            container_id, raw = self.proposer.wrap(
                inner, t, self.state.height, self.proposer_of(height)
            )
        self.last_inner = sha256(inner)
        self.state.height = height
        self.state.time = t
        self.state.heights.append((height, t))
        for tx in txs:
            self._record(tx, P_BLOCK, height, t)
        return Container(P_BLOCK, container_id, raw, accepted_ns, t)

    def _reward(self, staker: Staker, accepted_ns: int) -> list[Container]:
        t = staker.end
        reward_tx = PChainTx(RewardValidatorTx(staker.tx_id), ())
        height = self.state.height + 1
        proposal = BanffProposalBlock(t, (), self.last_inner, height, reward_tx)
        first = self._emit(proposal, t, height, accepted_ns, [reward_tx])
        node = staker.node_id
        commit = uptime.earns_reward(node)
        self._settle_staker(staker, commit)
        option_block: Any = (
            BanffCommitBlock(t, self.last_inner, height + 1)
            if commit
            else BanffAbortBlock(t, self.last_inner, height + 1)
        )
        second = self._emit(option_block, t, height + 1, accepted_ns + 1_000, [], option=True)
        return [first, second]

    def _settle_staker(self, staker: Staker, commit: bool) -> None:
        """Return the stake and pay rewards as avalanchego's rewardValidatorTx /
        rewardDelegatorTx do, then remove the staker."""
        del self.state.stakers[staker.tx_id]
        base = staker.n_outputs
        for i, out in enumerate(staker.stake):
            self.utxos.add(Coin(staker.tx_id, base + i, out.asset_id, out.output))
        after_stake = base + len(staker.stake)
        if not commit:
            self.state.supply -= staker.potential_reward
        if staker.kind == "validator":
            offset = 0
            if commit and staker.potential_reward > 0:
                assert staker.rewards_owner is not None
                self._pay(staker.tx_id, after_stake, staker.potential_reward, staker.rewards_owner)
                offset = 1
            if staker.delegatee_reward > 0:
                assert staker.delegation_rewards_owner is not None
                owner = staker.delegation_rewards_owner
                self._pay(staker.tx_id, after_stake + offset, staker.delegatee_reward, owner)
            return
        # a delegator
        if not commit:
            return
        validator = self.state.validator_of(staker.node_id, staker.subnet_id)
        shares = validator.shares if validator is not None else 0
        delegator_part, delegatee_part = split_delegation(staker.potential_reward, shares)
        if delegator_part > 0:
            assert staker.rewards_owner is not None
            self._pay(staker.tx_id, after_stake, delegator_part, staker.rewards_owner)
        if validator is not None:
            # Cortina on: the validator's commission is paid when the validator leaves.
            validator.delegatee_reward += delegatee_part

    def _pay(self, tx_id: bytes, index: int, amount: int, owner: Any) -> None:
        out = TransferOutput(amount, owner.locktime, owner.threshold, owner.addresses)
        self.utxos.add(Coin(tx_id, index, AVAX_ASSET_ID, out))
        self.state.reward_utxos.setdefault(tx_id, []).append((index, amount, owner))

    # -- txs: transfers (export and import_ are UtxoChainSim's) ----------------------------------

    def transfer(self, sender: SecpKey, recipient: bytes, amount: int, memo: bytes = b"") -> Any:
        spend = self._pay_from(sender, amount + FEE)
        unsigned = BaseTx(self._base(spend, [transfer(AVAX_ASSET_ID, amount, recipient)], memo))
        tx = sign_p(unsigned, spend.signers)
        self._apply_base(tx, spend)
        return tx

    # -- txs: staking ----------------------------------------------------------------------------

    def add_validator(
        self, node: Node, staker: SecpKey, weight: int, end: int, shares: int = 20_000
    ) -> Any:
        if self.state.validator_of(node.node_id, PRIMARY_SUBNET_ID) is not None:
            raise Skip("already validating")
        start = self.state.time
        spend = self._pay_from(staker, weight + FEE)
        stake = (transfer(AVAX_ASSET_ID, weight, staker.address),)
        unsigned = AddPermissionlessValidatorTx(
            self._base(spend),
            Validator(node.node_id, start, end, weight),
            PRIMARY_SUBNET_ID,
            ProofOfPossession(node.bls.public_key, node.bls.proof_of_possession),
            stake,
            owners(staker.address),
            owners(staker.address),
            shares,
        )
        return self._add_staker(
            unsigned,
            spend,
            "validator",
            owners(staker.address),
            delegation_rewards_owner=owners(staker.address),
            shares=shares,
            bls_public_key=node.bls.public_key,
        )

    def add_delegator(self, validator: Staker, delegator: SecpKey, weight: int, end: int) -> Any:
        start = self.state.time
        if end > validator.end or end <= start:
            raise Skip("delegation outside the validator's period")
        spend = self._pay_from(delegator, weight + FEE)
        stake = (transfer(AVAX_ASSET_ID, weight, delegator.address),)
        unsigned = AddPermissionlessDelegatorTx(
            self._base(spend),
            Validator(validator.node_id, start, end, weight),
            PRIMARY_SUBNET_ID,
            stake,
            owners(delegator.address),
        )
        return self._add_staker(unsigned, spend, "delegator", owners(delegator.address))

    def _add_staker(
        self, unsigned: Any, spend: Spend, kind: str, rewards_owner: OutputOwners, **more: Any
    ) -> PChainTx:
        """Sign and apply a primary-network staking tx, add its potential reward to the supply
        and record the staker (`more`: the validator-only Staker fields)."""
        tx = sign_p(unsigned, spend.signers)
        tx_id = self._apply_base(tx, spend)
        v = unsigned.validator
        reward = potential_reward(v.end - v.start, v.weight, self.state.supply)
        self.state.supply += reward
        self.state.potential_rewards[tx_id] = reward
        self.state.stakers[tx_id] = Staker(
            tx_id,
            kind,
            v.node_id,
            PRIMARY_SUBNET_ID,
            v.start,
            v.end,
            v.weight,
            reward,
            unsigned.stake_outputs,
            len(unsigned.base.outputs),
            rewards_owner,
            **more,
        )
        return tx

    # -- txs: subnets and chains -----------------------------------------------------------------

    def _owner_key(self, subnet: Subnet) -> SecpKey:
        return self.keys.key_for(subnet.owner)

    def create_subnet(self, owner: SecpKey) -> Any:
        spend = self._pay_from(owner, CREATE_FEE)
        unsigned = CreateSubnetTx(self._base(spend), owners(owner.address))
        tx = sign_p(unsigned, spend.signers)
        subnet_id = self._apply_base(tx, spend)
        self.state.subnets[subnet_id] = Subnet(subnet_id, owner.address)
        return tx

    def create_chain(self, subnet_id: bytes, evm: EvmChainConfig) -> Any:
        subnet = self.state.subnets[subnet_id]
        owner = self._owner_key(subnet)
        spend = self._pay_from(owner, CREATE_FEE)
        genesis = json.dumps(evm.genesis_json(), separators=(",", ":")).encode()
        unsigned = CreateChainTx(
            self._base(spend), subnet_id, evm.name, SUBNET_EVM_VM_ID, (), genesis, auth()
        )
        tx = sign_p(unsigned, [*spend.signers, [owner]])
        chain_id = self._apply_base(tx, spend)
        subnet.chains.append(chain_id)
        self.state.chains[chain_id] = Blockchain(
            chain_id, evm.name, subnet_id, SUBNET_EVM_VM_ID, evm, self.state.time
        )
        return tx

    def add_subnet_validator(self, subnet_id: bytes, node: Node, weight: int, end: int) -> Any:
        subnet = self.state.subnets[subnet_id]
        primary = self.state.validator_of(node.node_id, PRIMARY_SUBNET_ID)
        if subnet.converted or primary is None or primary.end < end:
            raise Skip("node cannot validate this subnet for that long")
        if self.state.validator_of(node.node_id, subnet_id) is not None:
            raise Skip("already a subnet validator")
        owner = self._owner_key(subnet)
        spend = self._pay_from(owner, FEE)
        start = self.state.time
        unsigned = AddSubnetValidatorTx(
            self._base(spend), Validator(node.node_id, start, end, weight), subnet_id, auth()
        )
        tx = sign_p(unsigned, [*spend.signers, [owner]])
        tx_id = self._apply_base(tx, spend)
        self.state.stakers[tx_id] = Staker(
            tx_id, "subnet_validator", node.node_id, subnet_id, start, end, weight
        )
        return tx

    def remove_subnet_validator(self, subnet_id: bytes, node_id: bytes) -> Any:
        subnet = self.state.subnets[subnet_id]
        staker = self.state.validator_of(node_id, subnet_id)
        if staker is None or staker.kind != "subnet_validator":
            raise Skip("not a subnet validator")
        owner = self._owner_key(subnet)
        spend = self._pay_from(owner, FEE)
        unsigned = RemoveSubnetValidatorTx(self._base(spend), node_id, subnet_id, auth())
        tx = sign_p(unsigned, [*spend.signers, [owner]])
        self._apply_base(tx, spend)
        del self.state.stakers[staker.tx_id]
        return tx

    def transfer_subnet_ownership(self, subnet_id: bytes, new_owner: SecpKey) -> Any:
        subnet = self.state.subnets[subnet_id]
        owner = self._owner_key(subnet)
        spend = self._pay_from(owner, FEE)
        unsigned = TransferSubnetOwnershipTx(
            self._base(spend), subnet_id, auth(), owners(new_owner.address)
        )
        tx = sign_p(unsigned, [*spend.signers, [owner]])
        self._apply_base(tx, spend)
        subnet.owner = new_owner.address
        return tx

    # -- txs: L1s (Etna) -------------------------------------------------------------------------

    def convert_subnet(
        self,
        subnet_id: bytes,
        manager_chain: bytes,
        manager_address: bytes,
        validators: Sequence[tuple[Node, int, int, SecpKey]],
    ) -> Any:
        """`validators`: (node, weight, balance, owner of balance refunds and deactivation)."""
        subnet = self.state.subnets[subnet_id]
        if subnet.converted:
            raise Skip("already an L1")
        owner = self._owner_key(subnet)
        ordered = sorted(validators, key=lambda v: v[0].node_id)
        specs = tuple(
            L1ValidatorSpec(
                node.node_id,
                weight,
                balance,
                node.bls.public_key,
                node.bls.proof_of_possession,
                PChainOwner(1, (key.address,)),
                PChainOwner(1, (key.address,)),
            )
            for node, weight, balance, key in ordered
        )
        spend = self._pay_from(owner, CREATE_FEE + sum(v[2] for v in ordered))
        unsigned = ConvertSubnetToL1Tx(
            self._base(spend), subnet_id, manager_chain, manager_address, specs, auth()
        )
        tx = sign_p(unsigned, [*spend.signers, [owner]])
        tx_id = self._apply_base(tx, spend)
        subnet.converted = True
        subnet.manager_chain = manager_chain
        subnet.manager_address = manager_address
        subnet.conversion_tx = tx_id
        for i, ((node, weight, balance, _key), spec) in enumerate(zip(ordered, specs, strict=True)):
            validation_id = sha256(subnet_id + i.to_bytes(4, "big"))
            refunds, deactivation = spec.remaining_balance_owner, spec.deactivation_owner
            self._add_l1_validator(
                validation_id, subnet_id, node, weight, balance, refunds, deactivation
            )
        # Legacy validators stop validating the subnet once it is an L1.
        for s in self.state.current_stakers("subnet_validator", subnet_id):
            del self.state.stakers[s.tx_id]
        return tx

    def _warp_signers(self, subnet_id: bytes) -> list[WarpSigner]:
        t = self.state.time
        nodes = {n.node_id: n for n in self.keys.nodes}
        return [
            WarpSigner(nodes[v.node_id].bls, v.weight)
            for v in self.state.l1_validators.values()
            if v.subnet_id == subnet_id and v.active(t)
        ]

    def _signed(self, subnet: Subnet, message: Any) -> bytes:
        assert subnet.manager_chain is not None
        signers = self._warp_signers(subnet.subnet_id)
        if not signers:
            raise Skip("no active L1 validator to sign")
        return sign_l1_message(
            NETWORK_ID, subnet.manager_chain, subnet.manager_address, message, signers
        )

    def register_l1_validator(
        self,
        subnet_id: bytes,
        node: Node,
        weight: int,
        balance: int,
        owner: SecpKey,
        payer: SecpKey,
        refund_to: SecpKey | None = None,
    ) -> Any:
        """`owner` may disable it; `refund_to` (default `owner`) gets its balance back."""
        subnet = self.state.subnets[subnet_id]
        if not subnet.converted:
            raise Skip("not an L1")
        if any(v.node_id == node.node_id for v in self.state.l1_validators.values()):
            raise Skip("node already an L1 validator")
        t = self.state.time
        pchain_owner = PChainOwner(1, (owner.address,))
        balance_owner = PChainOwner(1, ((refund_to or owner).address,))
        message = RegisterL1Validator(
            subnet_id,
            node.node_id,
            node.bls.public_key,
            t + REGISTER_EXPIRY,
            balance_owner,
            pchain_owner,
            weight,
        )
        signed = self._signed(subnet, message)
        spend = self._pay_from(payer, balance + FEE)
        unsigned = RegisterL1ValidatorTx(
            self._base(spend), balance, node.bls.proof_of_possession, signed
        )
        tx = sign_p(unsigned, spend.signers)
        self._apply_base(tx, spend)
        validation_id = sha256(encode_pchain_message(message))
        self._add_l1_validator(
            validation_id, subnet_id, node, weight, balance, balance_owner, pchain_owner
        )
        return tx

    def _add_l1_validator(
        self,
        validation_id: bytes,
        subnet_id: bytes,
        node: Node,
        weight: int,
        balance: int,
        balance_owner: PChainOwner,
        deactivation_owner: PChainOwner,
    ) -> None:
        """An L1 validator active from now on, its balance as of now."""
        t = self.state.time
        self.state.l1_validators[validation_id] = L1Validator(
            validation_id,
            subnet_id,
            node.node_id,
            node.bls.public_key,
            weight,
            balance,
            t,
            t,
            balance_owner,
            deactivation_owner,
            node.label,
        )

    def set_l1_weight(self, validation_id: bytes, weight: int, payer: SecpKey) -> Any:
        v = self.state.l1_validators.get(validation_id)
        if v is None:
            raise Skip("no such L1 validator")
        subnet = self.state.subnets[v.subnet_id]
        total = sum(
            o.weight for o in self.state.l1_validators.values() if o.subnet_id == v.subnet_id
        )
        if weight == 0 and total == v.weight:
            raise Skip("cannot remove the last L1 validator")
        signed = self._signed(subnet, L1ValidatorWeight(validation_id, v.min_nonce, weight))
        spend = self._pay_from(payer, FEE)
        unsigned = SetL1ValidatorWeightTx(self._base(spend), signed)
        tx = sign_p(unsigned, spend.signers)
        tx_id = self._apply_base(tx, spend)
        t = self.state.time
        v.min_nonce += 1
        if weight == 0:
            self._refund(v, tx_id, len(unsigned.base.outputs), t)
            del self.state.l1_validators[validation_id]
            self.state.removed_l1_validators[validation_id] = v
        v.weight = weight
        return tx

    def increase_l1_balance(self, validation_id: bytes, amount: int, payer: SecpKey) -> Any:
        v = self.state.l1_validators.get(validation_id)
        if v is None or v.disabled:
            raise Skip("no such enabled L1 validator")
        spend = self._pay_from(payer, amount + FEE)
        unsigned = IncreaseL1ValidatorBalanceTx(self._base(spend), validation_id, amount)
        tx = sign_p(unsigned, spend.signers)
        self._apply_base(tx, spend)
        v.settle(self.state.time)
        v.balance += amount
        return tx

    def disable_l1_validator(self, validation_id: bytes) -> Any:
        v = self.state.l1_validators.get(validation_id)
        if v is None or v.disabled:
            raise Skip("no such enabled L1 validator")
        key = self.keys.key_for(v.deactivation_owner.addresses[0])
        spend = self._pay_from(key, FEE)
        unsigned = DisableL1ValidatorTx(self._base(spend), validation_id, auth())
        tx = sign_p(unsigned, [*spend.signers, [key]])
        tx_id = self._apply_base(tx, spend)
        self._refund(v, tx_id, len(unsigned.base.outputs), self.state.time)
        v.disabled = True
        return tx

    def _refund(self, v: L1Validator, tx_id: bytes, index: int, t: int) -> None:
        v.settle(t)
        if v.balance > 0:
            owner = v.remaining_balance_owner
            out = TransferOutput(v.balance, 0, owner.threshold, owner.addresses)
            self.utxos.add(Coin(tx_id, index, AVAX_ASSET_ID, out))
            self.state.refunds[tx_id] = (index, v.balance, owner)
        v.balance = 0

    # -- views -----------------------------------------------------------------------------------

    def balance(self, key: SecpKey) -> int:
        return self.utxos.balance(key.address, AVAX_ASSET_ID, TransferOutput)

    def book(self) -> UtxoBook:
        return self.utxos
