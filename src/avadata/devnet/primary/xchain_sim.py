"""The X-chain simulator: signed avm txs, first in DAG vertices, then in linear blocks.

Stage: devnet. Like pchain_sim, it knows how to build, sign and apply txs; `simulator`
decides what to send and when.

History shape: the devnet's X-chain starts in the DAG era (each vertex's txs are indexed in
X/vtx as the vertex and in X/tx one by one, which is what avalanchego's indexer did before
Cortina), then a stop vertex (codec version 1) ends the DAG and the chain goes linear: a
StandardBlock genesis (height 0, parent = the stop vertex, not indexed, as avm's
linearization builds it) followed by StandardBlocks wrapped by proposervm in X/block.

Assets: AVAX plus what the history creates: fixed-supply fungible assets (secp256k1fx), a
variable-supply one with a secp256k1fx mint output (minted by MintOperation, which returns
the mint output), and an NFT family (nftfx: each group's mint output is consumed by its
NftMintOperation; NFTs move with NftTransferOperation). Operations carry their own
credential (nftfx.Credential for nftfx operations), after the inputs' credentials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from avadata.decode.codec import api
from avadata.decode.codec.components import (
    Credential,
    FxState,
    Input,
    MintOperation,
    MintOutput,
    OutputOwners,
    TransferOutput,
)
from avadata.decode.codec.fields import Iface, TypeTable
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.writer import Writer
from avadata.decode.codec.xchain import (
    UTXOID,
    XCHAIN_TABLE,
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    InitialState,
    Operation,
    OperationTx,
    StandardBlock,
    StopVertex,
    Vertex,
    XChainTx,
)
from avadata.decode.codec.xchain_fx import (
    NftCredential,
    NftMintOperation,
    NftMintOutput,
    NftTransferOperation,
    NftTransferOutput,
)
from avadata.devnet.primary.containers import (
    X_BLOCK,
    X_TX,
    X_VTX,
    Container,
    ProposerChain,
    TxRecord,
)
from avadata.devnet.primary.keys import Keyring, SecpKey
from avadata.devnet.primary.network_ids import AVAX_ASSET_ID, X_CHAIN_ID
from avadata.devnet.primary.txkit import (
    sign_x,
    transfer,
)
from avadata.devnet.primary.utxo_book import Coin, SharedMemory
from avadata.devnet.primary.utxo_chain import Skip, UtxoChain, UtxoChainSim

FEE = 1_000_000  # 0.001 AVAX, Fuji's X-chain tx fee
CREATE_ASSET_FEE = 10_000_000  # 0.01 AVAX
SECP_FX, NFT_FX = 0, 1  # fx indices on the X-chain (registration order)
_STATE = Iface(FxState)


@dataclass
class Asset:
    asset_id: bytes
    name: str
    symbol: str
    denomination: int
    kind: str  # "fungible", "mintable" or "nft"
    groups_left: list[int] = field(default_factory=list)


def _sorted_states(outputs: Sequence[Any], table: TypeTable = XCHAIN_TABLE) -> tuple[Any, ...]:
    """Initial-state outputs sorted by their codec bytes (type ID included)."""

    def key(out: Any) -> bytes:
        w = Writer()
        _STATE.write(w, table, out)
        return w.getvalue()

    return tuple(sorted(outputs, key=key))


class XChainSim(UtxoChainSim[XChainTx]):
    CHAIN = UtxoChain(X_CHAIN_ID, "X", XCHAIN_TABLE, ImportTx, ExportTx, fee=FEE)

    def __init__(
        self, seed: int, keys: Keyring, shared: SharedMemory, records: list[TxRecord]
    ) -> None:
        super().__init__(seed, keys, shared, records)
        self.assets: dict[bytes, Asset] = {
            AVAX_ASSET_ID: Asset(AVAX_ASSET_ID, "Avalanche", "AVAX", 9, "fungible")
        }
        self.time = 0
        self.height = 0  # vertex height in the DAG era, then block height
        self.linear = False
        self.last_vertex: bytes | None = None
        self.last_inner = b""
        self.proposer: ProposerChain | None = None

    # -- genesis --------------------------------------------------------------------------------

    def genesis(self, time: int, allocations: Sequence[tuple[bytes, int]]) -> None:
        """AVAX UTXOs of the X genesis: outputs of the genesis CreateAssetTx whose ID is the
        AVAX asset ID (so their tx ID is the asset ID, as on every network)."""
        self.time = time
        self._genesis_coins(AVAX_ASSET_ID, allocations)

    def _now(self) -> int:
        return self.time

    def _sign(self, unsigned: Any, signers: Sequence[Sequence[SecpKey]]) -> XChainTx:
        return sign_x(unsigned, signers)

    # -- containers -----------------------------------------------------------------------------

    def vertex(self, t: int, txs: Sequence[XChainTx], accepted_ns: int) -> list[Container]:
        """A DAG vertex (X/vtx) and its txs (X/tx), accepted together."""
        if self.linear:
            raise ValueError("the DAG has been stopped")
        parents = (self.last_vertex,) if self.last_vertex is not None else ()
        height = self.height + 1 if self.last_vertex is not None else 0
        raws = tuple(tx.signed_bytes(XCHAIN_TABLE) for tx in txs)
        raw = api.encode_vertex(Vertex(X_CHAIN_ID, height, 0, parents, raws))
        vertex_id = sha256(raw)
        self.last_vertex, self.height, self.time = vertex_id, height, t
        out = [Container(X_VTX, vertex_id, raw, accepted_ns, t)]
        for tx, tx_raw in zip(txs, raws, strict=True):
            out.append(Container(X_TX, sha256(tx_raw), tx_raw, accepted_ns, t))
            self._record(tx, X_VTX, height, t)
        return out

    def stop_dag(self, t: int, accepted_ns: int) -> Container:
        """The Cortina stop vertex; the linear chain's (unindexed) genesis block follows it."""
        assert self.last_vertex is not None, "stop after at least one vertex"
        height = self.height + 1
        raw = api.encode_vertex(StopVertex(X_CHAIN_ID, height, (self.last_vertex,)))
        stop_id = sha256(raw)
        genesis = api.encode_x_block(StandardBlock(stop_id, 0, t, bytes(32), ()))
        self.last_inner = sha256(genesis)
        self.proposer = ProposerChain(parent=self.last_inner)
        self.linear, self.height, self.time = True, 0, t
        return Container(X_VTX, stop_id, raw, accepted_ns, t)

    def standard_block(
        self, t: int, txs: Sequence[XChainTx], accepted_ns: int, p_height: int
    ) -> Container:
        if not self.linear or self.proposer is None:
            raise ValueError("call stop_dag first")
        if not txs:
            raise ValueError("a block needs at least one tx")
        t = max(t, self.time)
        height = self.height + 1
        inner = api.encode_x_block(StandardBlock(self.last_inner, height, t, bytes(32), tuple(txs)))
        container_id, raw = self.proposer.wrap(inner, t, p_height, self.proposer_of(height))
        self.last_inner, self.height, self.time = sha256(inner), height, t
        for tx in txs:
            self._record(tx, X_BLOCK, height, t)
        return Container(X_BLOCK, container_id, raw, accepted_ns, t)

    # -- txs (export and import_ are UtxoChainSim's) -----------------------------------------------

    def transfer(
        self, sender: SecpKey, recipient: bytes, asset: bytes, amount: int, memo: bytes = b""
    ) -> XChainTx:
        needs = {AVAX_ASSET_ID: FEE}
        needs[asset] = needs.get(asset, 0) + amount
        spend = self._select(sender, needs)
        unsigned = BaseTx(self._base(spend, [transfer(asset, amount, recipient)], memo))
        tx = sign_x(unsigned, spend.signers)
        self._apply_base(tx, spend)
        return tx

    def create_asset(
        self,
        creator: SecpKey,
        name: str,
        symbol: str,
        denomination: int,
        holders: Sequence[tuple[bytes, int]] = (),
        minter: bytes | None = None,
        nft_groups: int = 0,
    ) -> XChainTx:
        """A fungible asset held by `holders`, mintable by `minter` if given; or, with
        `nft_groups`, an NFT family whose group mint outputs belong to `minter`."""
        states: list[InitialState] = []
        if nft_groups:
            assert minter is not None
            mints = [NftMintOutput(g, 0, 1, (minter,)) for g in range(nft_groups)]
            states.append(InitialState(NFT_FX, _sorted_states(mints)))
            kind = "nft"
        else:
            outs: list[Any] = [TransferOutput(a, 0, 1, (h,)) for h, a in holders]
            if minter is not None:
                outs.append(MintOutput(0, 1, (minter,)))
            states.append(InitialState(SECP_FX, _sorted_states(outs)))
            kind = "mintable" if minter is not None else "fungible"
        spend = self._select(creator, {AVAX_ASSET_ID: CREATE_ASSET_FEE})
        unsigned = CreateAssetTx(self._base(spend), name, symbol, denomination, tuple(states))
        tx = sign_x(unsigned, spend.signers)
        asset_id = self._apply_base(tx, spend)
        index = len(unsigned.base.outputs)
        for state in unsigned.initial_states:
            for out in state.outputs:
                self.utxos.add(Coin(asset_id, index, asset_id, out))
                index += 1
        self.assets[asset_id] = Asset(
            asset_id, name, symbol, denomination, kind, list(range(nft_groups))
        )
        return tx

    def _operation_tx(
        self,
        payer: SecpKey,
        asset: bytes,
        consumed: Coin,
        operation: Any,
        operation_signer: SecpKey,
        credential_cls: type,
        outputs: Sequence[Any],
    ) -> XChainTx:
        spend = self._select(payer, {AVAX_ASSET_ID: FEE})
        op = Operation(asset, (UTXOID(consumed.tx_id, consumed.index),), operation)
        unsigned = OperationTx(self._base(spend), (op,))
        tx = sign_x(unsigned, spend.signers, [(credential_cls, [operation_signer])])
        tx_id = self._apply_base(tx, spend)
        self.utxos.spend(consumed.tx_id, consumed.index)
        first = len(unsigned.base.outputs)
        for i, out in enumerate(outputs):
            self.utxos.add(Coin(tx_id, first + i, asset, out))
        return tx

    def mint(self, asset: bytes, recipient: bytes, amount: int) -> XChainTx:
        """secp256k1fx MintOperation: the mint output comes back, new units go to `recipient`."""
        mint_coins = [c for c in self.utxos if c.asset == asset and type(c.output) is MintOutput]
        if not mint_coins:
            raise Skip("no mint output")
        coin = mint_coins[0]
        minter = self.keys.key_for(coin.owners[0])
        mint_out = MintOutput(0, 1, coin.owners)
        new = TransferOutput(amount, 0, 1, (recipient,))
        op = MintOperation(Input((0,)), mint_out, new)
        return self._operation_tx(minter, asset, coin, op, minter, Credential, [mint_out, new])

    def mint_nft(self, asset: bytes, recipients: Sequence[bytes], payload: bytes) -> XChainTx:
        info = self.assets[asset]
        if not info.groups_left:
            raise Skip("every NFT group minted")
        group = info.groups_left[0]
        coin = next(
            (
                c
                for c in self.utxos
                if c.asset == asset
                and isinstance(c.output, NftMintOutput)
                and c.output.group_id == group
            ),
            None,
        )
        if coin is None:
            raise Skip("mint output gone")
        minter = self.keys.key_for(coin.owners[0])
        owners = tuple(OutputOwners(0, 1, (r,)) for r in recipients)
        op = NftMintOperation(Input((0,)), group, payload, owners)
        outs = [NftTransferOutput(group, payload, 0, 1, (r,)) for r in recipients]
        tx = self._operation_tx(minter, asset, coin, op, minter, NftCredential, outs)
        info.groups_left.pop(0)
        return tx

    def owns_nft(self, address: bytes) -> bool:
        return any(isinstance(c.output, NftTransferOutput) for c in self.utxos.owned(address))

    def transfer_nft(self, owner: SecpKey, recipient: bytes) -> XChainTx:
        coins = [
            c for c in self.utxos.owned(owner.address) if isinstance(c.output, NftTransferOutput)
        ]
        if not coins:
            raise Skip("owns no NFT")
        coin = coins[0]
        out = NftTransferOutput(coin.output.group_id, coin.output.payload, 0, 1, (recipient,))
        op = NftTransferOperation(Input((0,)), out)
        return self._operation_tx(owner, coin.asset, coin, op, owner, NftCredential, [out])
