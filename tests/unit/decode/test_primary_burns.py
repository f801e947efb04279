"""What a primary-network tx burns (decode/primary/burns.py), on codec-built txs whose fee is
known by construction: consumed minus created, per asset, stake and exports counted as
created, EVM inputs and outputs of the C-chain's atomic txs too; an L1 deposit apart."""

from __future__ import annotations

from avadata.decode.codec.atomic import EVMInput, EVMOutput, UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.components import (
    AvaxBaseTx,
    LockIn,
    LockOut,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.ids import cb58_encode
from avadata.decode.codec.pchain import BaseTx, ExportTx, IncreaseL1ValidatorBalanceTx
from avadata.decode.primary.burns import burned, l1_deposit
from avadata.decode.primary.txs import _burned

AVAX, GOLD = bytes([7]) * 32, bytes([8]) * 32
A = bytes([1]) * 20


def _out(asset: bytes, amount: int, locked: bool = False) -> TransferableOutput:
    inner = TransferOutput(amount, 0, 1, (A,))
    return TransferableOutput(asset, LockOut(9, inner) if locked else inner)


def _in(asset: bytes, amount: int, n: int, locked: bool = False) -> TransferableInput:
    inner = TransferInput(amount, (0,))
    return TransferableInput(bytes([n]) * 32, 0, asset, LockIn(9, inner) if locked else inner)


def _base(ins: tuple[TransferableInput, ...], outs: tuple[TransferableOutput, ...]) -> AvaxBaseTx:
    return AvaxBaseTx(5, bytes(32), outs, ins, b"")


def test_a_base_tx_burns_its_inputs_less_its_outputs_per_asset_through_locks() -> None:
    tx = BaseTx(
        base=_base(
            (_in(AVAX, 600, 1), _in(AVAX, 500, 2, locked=True), _in(GOLD, 40, 3)),
            (_out(AVAX, 1_000), _out(AVAX, 90, locked=True), _out(GOLD, 40)),
        )
    )
    assert burned(tx) == {cb58_encode(AVAX): 10}


def test_exports_count_as_created() -> None:
    tx = ExportTx(
        base=_base((_in(AVAX, 1_000, 1),), (_out(AVAX, 300),)),
        destination_chain=bytes([4]) * 32,
        exported_outputs=(_out(AVAX, 699),),
    )
    assert burned(tx) == {cb58_encode(AVAX): 1}


def test_c_chain_atomic_txs_count_their_evm_side() -> None:
    imp = UnsignedImportTx(
        5, bytes(32), bytes(32), (_in(AVAX, 1_000, 1),), (EVMOutput(A, 975, AVAX),)
    )
    exp = UnsignedExportTx(
        5, bytes(32), bytes(32), (EVMInput(A, 2_000, AVAX, 0),), (_out(AVAX, 1_950),)
    )
    assert burned(imp) == {cb58_encode(AVAX): 25}
    assert burned(exp) == {cb58_encode(AVAX): 50}


def test_an_l1_deposit_is_not_the_fee() -> None:
    tx = IncreaseL1ValidatorBalanceTx(
        base=_base((_in(AVAX, 5_000, 1),), (_out(AVAX, 1_000),)),
        validation_id=bytes(32),
        balance=3_999,
    )
    assert l1_deposit(tx) == 3_999
    assert burned(tx) == {cb58_encode(AVAX): 4_000}
    assert _burned(tx) == ((cb58_encode(AVAX), 1),)
