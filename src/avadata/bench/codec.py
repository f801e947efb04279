"""`avadata bench codec`: P-chain block decoding throughput, ours beside avalanchejs.

The stream is built here from our own encoder with a fixed seed: Banff standard blocks of
1-8 txs (base, import, export, permissionless delegator and, rarely, validator txs with a
real BLS proof of possession), proposal blocks carrying a RewardValidatorTx, and their
commit/abort children, in roughly the mix the mainnet P-chain shows since Banff.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from avadata.decode.codec import api, pchain
from avadata.decode.codec.components import (
    AvaxBaseTx,
    Credential,
    EmptySigner,
    OutputOwners,
    ProofOfPossession,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.pchain_blocks import (
    BanffAbortBlock,
    BanffCommitBlock,
    BanffProposalBlock,
    BanffStandardBlock,
    PBlock,
    block_txs,
)

# A public key and its proof of possession from avalanchego's fee-calculator test
# (vms/platformvm/txs/fee/calculator_test.go); avalanchejs verifies the pair when parsing.
_BLS_PK = bytes.fromhex(
    "a3783a891cb41cadbfcf456da149f30e7af972677a162b984bef0779f254baac"
    "51ec042df1781d1295df80fb41c80126"
)
_BLS_POP = bytes.fromhex(
    "9731fc6c25e1e5940dc3cb8509e30348fa712742cfdc83678acc9f95908eb98b"
    "89b28802fb559b4a2a6ff3216707c07f0ceb0b45a95f4f9a9540bbd3331d8ab4"
    "f233bffa4abb97fad9d59a1695f31b92a2b89e365facf7ab8c30de7c4a496d1e"
)
_AVAX = bytes.fromhex("21e67317cbc4be2aeb00677ad6462778a8f52274b9d605df2591b23027a87dff")
_C_CHAIN = bytes.fromhex("0427d4b22a2a78bcddd456742caf91b56badbff985ee19aef14573e7343fd652")


class _Gen:
    def __init__(self, seed: int, with_bls: bool) -> None:
        self.rng = random.Random(seed)
        self.with_bls = with_bls

    def owners(self) -> OutputOwners:
        return OutputOwners(0, 1, (self.rng.randbytes(20),))

    def out(self) -> TransferableOutput:
        owners = self.owners()
        amount = self.rng.randrange(1, 10**15)
        return TransferableOutput(_AVAX, TransferOutput(amount, 0, 1, owners.addresses))

    def inp(self) -> TransferableInput:
        amount = self.rng.randrange(1, 10**15)
        return TransferableInput(
            self.rng.randbytes(32), self.rng.randrange(4), _AVAX, TransferInput(amount, (0,))
        )

    def base(self, n_in: int, n_out: int) -> AvaxBaseTx:
        ins = tuple(sorted((self.inp() for _ in range(n_in)), key=lambda i: i.tx_id))
        return AvaxBaseTx(1, bytes(32), tuple(self.out() for _ in range(n_out)), ins, b"")

    def validator(self) -> pchain.Validator:
        start = 1_700_000_000 + self.rng.randrange(10**7)
        return pchain.Validator(self.rng.randbytes(20), start, start + 14 * 86400, 25 * 10**9)

    def signed(self, unsigned: pchain.PUnsignedTx, n_creds: int) -> pchain.PChainTx:
        creds = tuple(Credential((self.rng.randbytes(65),)) for _ in range(n_creds))
        return pchain.PChainTx(unsigned=unsigned, credentials=creds)

    def decision_tx(self) -> pchain.PChainTx:
        kind = self.rng.choices(["base", "import", "export", "delegator", "validator"],
                                weights=[25, 15, 15, 40, 5])[0]  # fmt: skip
        n_in = self.rng.randint(1, 3)
        base = self.base(n_in, self.rng.randint(1, 2))
        u: pchain.PUnsignedTx
        if kind == "base":
            u = pchain.BaseTx(base)
        elif kind == "import":
            u = pchain.ImportTx(base, _C_CHAIN, (self.inp(),))
            n_in += 1
        elif kind == "export":
            u = pchain.ExportTx(base, _C_CHAIN, (self.out(),))
        elif kind == "delegator":
            u = pchain.AddPermissionlessDelegatorTx(
                base, self.validator(), bytes(32), (self.out(),), self.owners()
            )
        else:
            u = pchain.AddPermissionlessValidatorTx(
                base,
                self.validator(),
                bytes(32),
                ProofOfPossession(_BLS_PK, _BLS_POP) if self.with_bls else EmptySigner(),
                (self.out(),),
                self.owners(),
                self.owners(),
                20_000,
            )
        return self.signed(u, n_in)


def build_stream(n_blocks: int, seed: int = 1, with_bls: bool = True) -> list[bytes]:
    """`with_bls=False` gives validator txs an empty signer: avalanchejs verifies every
    proof of possession it parses (a BLS pairing), which otherwise dominates its time."""
    g = _Gen(seed, with_bls)
    blocks: list[PBlock] = []
    height, t = 1_000_000, 1_700_000_000
    parent = bytes(32)
    while len(blocks) < n_blocks:
        height += 1
        t += g.rng.randint(1, 20)
        if g.rng.random() < 0.15:  # a staker's end: proposal, then commit or abort
            reward = g.signed(pchain.RewardValidatorTx(g.rng.randbytes(32)), 0)
            blocks.append(BanffProposalBlock(t, (), parent, height, reward))
            height += 1
            child = BanffCommitBlock if g.rng.random() < 0.9 else BanffAbortBlock
            blocks.append(child(t, g.rng.randbytes(32), height))
        else:
            txs = tuple(g.decision_tx() for _ in range(g.rng.randint(1, 8)))
            blocks.append(BanffStandardBlock(t, parent, height, txs))
        parent = g.rng.randbytes(32)
    return [api.encode_p_block(b) for b in blocks[:n_blocks]]


@dataclass
class Result:
    name: str
    txs: int
    blocks: int
    seconds: float

    @property
    def tx_per_s(self) -> float:
        return self.txs / self.seconds


def measure_ours(stream: list[bytes], min_seconds: float) -> Result:
    txs = blocks = 0
    start = time.perf_counter()
    while True:
        for raw in stream:
            txs += len(block_txs(api.decode_p_block(raw)))
        blocks += len(stream)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return Result("avadata (Python)", txs, blocks, elapsed)


def measure_avalanchejs(stream: list[bytes], min_seconds: float, tools: Path) -> Result:
    with tempfile.NamedTemporaryFile("w", suffix=".hex", delete=False) as fh:
        fh.write("\n".join(raw.hex() for raw in stream))
        path = fh.name
    try:
        res = subprocess.run(
            ["node", str(tools / "js" / "bench-pblocks.cjs"), path, str(min_seconds)],
            capture_output=True,
            text=True,
            cwd=tools,
            check=True,
        )
    finally:
        Path(path).unlink()
    out = json.loads(res.stdout)
    return Result("@avalabs/avalanchejs 5.2.0 (Node)", out["txs"], out["blocks"], out["seconds"])


def report(ours: Result, theirs: Result, stream: list[bytes], machine: str, command: str) -> str:
    n_txs = sum(len(block_txs(api.decode_p_block(b))) for b in stream)
    size = sum(map(len, stream))
    lines = [
        f"Machine: {machine}",
        f"Command: `{command}`",
        "",
        f"Stream: {len(stream)} P-chain blocks, {n_txs} txs, {size / 1024:.0f} KiB "
        "(Banff standard blocks of base/import/export/delegator/validator txs, "
        "proposal blocks with RewardValidatorTx, commit/abort blocks), decoded repeatedly.",
        "",
        "| decoder | txs decoded | seconds | tx/s |",
        "|---|---:|---:|---:|",
    ]
    for r in (ours, theirs):
        lines.append(f"| {r.name} | {r.txs} | {r.seconds:.2f} | {r.tx_per_s:,.0f} |")
    lines += ["", f"Ratio (ours / avalanchejs): {ours.tx_per_s / theirs.tx_per_s:.2f}x"]
    return "\n".join(lines)
