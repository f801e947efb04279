// Builds random signed transactions of every type with @avalabs/avalanchejs 5.2.0 and prints
// one JSON line per tx: {"chain", "type", "hex", "id"}; id = CB58(sha256(signed bytes)),
// computed from the bytes avalanchejs serialized. Usage: node random-txs.cjs COUNT_PER_TYPE SEED
'use strict';
const { createHash } = require('crypto');
const a = require('@avalabs/avalanchejs');
const { pvmSerial: p, avmSerial: x, evmSerial: e, avaxSerial: avax, utils } = a;

const count = Number(process.argv[2] || 10);
let seed = Number(process.argv[3] || 1) >>> 0;
// avalanchejs checks that BLS keys and signatures are curve points, so random bytes will not
// do; the caller passes real (publicKey, proofOfPossession) hex pairs taken from test vectors.
const blsPool = JSON.parse(require('fs').readFileSync(process.argv[4], 'utf8'));

function rand() {
  // mulberry32: small, seedable, good enough to pick shapes and fill bytes
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const rint = (n) => Math.floor(rand() * n);
const rbytes = (n) => Uint8Array.from({ length: n }, () => rint(256));
const rlen = (max) => rint(max + 1);
const list = (max, f) => Array.from({ length: rlen(max) }, f);
const u32 = () => new a.Int(rint(2 ** 32) >>> 0);
const big = () => {
  const pick = rint(4);
  if (pick === 0) return new a.BigIntPr(0n);
  if (pick === 1) return new a.BigIntPr(2n ** 64n - 1n);
  return new a.BigIntPr(BigInt('0x' + Buffer.from(rbytes(8)).toString('hex')));
};
const id = () => new a.Id(rbytes(32));
const addr = () => new a.Address(rbytes(20));
const nodeId = () => new a.NodeId(rbytes(20));
const bytes = (max) => new a.Bytes(rbytes(rlen(max)));
const str = (max) =>
  new a.Stringpr(Array.from({ length: rlen(max) }, () => String.fromCharCode(32 + rint(95))).join(''));

const owners = () => new a.OutputOwners(big(), u32(), list(3, addr));
const transferOut = () => new a.TransferOutput(big(), owners());
const input = () => new a.Input(list(3, u32));
const transferIn = () => new a.TransferInput(big(), input());
const utxoId = () => new avax.UTXOID(id(), u32());
const pOut = () =>
  rint(3) === 0 ? new p.StakeableLockOut(big(), transferOut()) : transferOut();
const pIn = () => (rint(3) === 0 ? new p.StakeableLockIn(big(), transferIn()) : transferIn());
const tOut = (out) => () => new a.TransferableOutput(id(), out());
const tIn = (inp) => () => new a.TransferableInput(utxoId(), id(), inp());
const avaxBase = (out, inp) =>
  new avax.BaseTx(u32(), id(), list(3, tOut(out)), list(3, tIn(inp)), bytes(32));
const pBase = () => avaxBase(pOut, pIn);
const xBase = () => avaxBase(transferOut, transferIn);
const cred = () => new a.Credential(list(3, () => new a.Signature(rbytes(65))));
const validator = () => new p.Validator(nodeId(), big(), big(), big());
const subnetValidator = () => new p.SubnetValidator(validator(), id());
const blsPair = () => blsPool[rint(blsPool.length)];
const hexBytes = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
const pop = () => {
  const pair = blsPair();
  return new p.ProofOfPossession(hexBytes(pair.pk), hexBytes(pair.pop));
};
const blsSig = () => a.BlsSignature.fromBytes(hexBytes(blsPair().pop))[0];
const signer = () => (rint(2) ? new p.Signer(pop()) : new p.SignerEmpty());
const pOwner = () => new a.PChainOwner(u32(), list(3, addr));
const l1Validator = () =>
  new a.L1Validator(bytes(24), big(), big(), pop(), pOwner(), pOwner());
const stake = () => list(3, tOut(pOut));
const pcodec = p.getPVMManager ? p.getPVMManager() : utils.getManagerForVM('PVM');
const rewardValidatorTx = () => {
  // avalanchejs registers RewardValidatorTx but does not export its class; build it
  // through its own codec from a type ID and a random staker tx ID.
  const raw = utils.concatBytes(new Uint8Array([0, 0, 0, 20]), rbytes(32));
  return pcodec.getDefaultCodec().UnpackPrefix(raw)[0];
};

const P = {
  BaseTx: () => new p.BaseTx(pBase()),
  AddValidatorTx: () => new p.AddValidatorTx(pBase(), validator(), stake(), owners(), u32()),
  AddSubnetValidatorTx: () => new p.AddSubnetValidatorTx(pBase(), subnetValidator(), input()),
  AddDelegatorTx: () => new p.AddDelegatorTx(pBase(), validator(), stake(), owners()),
  CreateChainTx: () =>
    new p.CreateChainTx(pBase(), id(), str(40), id(), list(3, id), bytes(64), input()),
  CreateSubnetTx: () => new p.CreateSubnetTx(pBase(), owners()),
  ImportTx: () => new p.ImportTx(pBase(), id(), list(3, tIn(pIn))),
  ExportTx: () => new p.ExportTx(pBase(), id(), list(3, tOut(pOut))),
  AdvanceTimeTx: () => new p.AdvanceTimeTx(big()),
  RewardValidatorTx: rewardValidatorTx,
  RemoveSubnetValidatorTx: () => new p.RemoveSubnetValidatorTx(pBase(), nodeId(), id(), input()),
  TransformSubnetTx: () =>
    new p.TransformSubnetTx(pBase(), id(), id(), big(), big(), big(), big(), big(), big(),
      u32(), u32(), u32(), big(), new a.Byte(rbytes(1)), u32(), input()),
  AddPermissionlessValidatorTx: () =>
    new p.AddPermissionlessValidatorTx(pBase(), subnetValidator(), signer(), stake(), owners(),
      owners(), u32()),
  AddPermissionlessDelegatorTx: () =>
    new p.AddPermissionlessDelegatorTx(pBase(), subnetValidator(), stake(), owners()),
  TransferSubnetOwnershipTx: () => new p.TransferSubnetOwnershipTx(pBase(), id(), input(), owners()),
  ConvertSubnetToL1Tx: () =>
    new p.ConvertSubnetToL1Tx(pBase(), id(), id(), bytes(20), list(3, l1Validator), input()),
  RegisterL1ValidatorTx: () =>
    new p.RegisterL1ValidatorTx(pBase(), big(), blsSig(), bytes(80)),
  SetL1ValidatorWeightTx: () => new p.SetL1ValidatorWeightTx(pBase(), bytes(80)),
  IncreaseL1ValidatorBalanceTx: () => new p.IncreaseL1ValidatorBalanceTx(pBase(), id(), big()),
  DisableL1ValidatorTx: () => new p.DisableL1ValidatorTx(pBase(), id(), input()),
  AddAutoRenewedValidatorTx: () =>
    new p.AddAutoRenewedValidatorTx(pBase(), nodeId(), new p.Signer(pop()), stake(), owners(),
      owners(), owners(), u32(), u32(), big()),
  SetAutoRenewedValidatorConfigTx: () =>
    new p.SetAutoRenewedValidatorConfigTx(pBase(), id(), input(), u32(), big()),
  RewardAutoRenewedValidatorTx: () => new p.RewardAutoRenewedValidatorTx(id(), big()),
};

const mintOutput = () => new a.MintOutput(owners());
const mintOp = () => new a.MintOperation(input(), mintOutput(), transferOut());
// avalanchejs does not export TransferableOp; get its class from an OperationTx that its
// own codec parsed (base tx | 1 op: asset ID, no UTXO IDs, a secp256k1fx MintOperation).
const TransferableOp = (() => {
  const codec = utils.getManagerForVM('AVM').getDefaultCodec();
  const raw = utils.concatBytes(
    xBase().toBytes(codec),
    new a.Int(1).toBytes(),
    id().toBytes(),
    new a.Int(0).toBytes(),
    codec.PackPrefix(mintOp()),
  );
  return x.OperationTx.fromBytes(raw, codec)[0].ops[0].constructor;
})();
const X = {
  BaseTx: () => new x.BaseTx(xBase()),
  CreateAssetTx: () =>
    new x.CreateAssetTx(xBase(), str(20), str(4), new a.Byte(rbytes(1)),
      list(2, () => new x.InitialState(u32(), list(3, () => (rint(2) ? transferOut() : mintOutput()))))),
  OperationTx: () =>
    new x.OperationTx(xBase(), list(2, () => new TransferableOp(id(), list(2, utxoId), mintOp()))),
  ImportTx: () => new x.ImportTx(xBase(), id(), list(3, tIn(transferIn))),
  ExportTx: () => new x.ExportTx(xBase(), id(), list(3, tOut(transferOut))),
};

const C = {
  UnsignedImportTx: () =>
    new e.ImportTx(u32(), id(), id(), list(3, tIn(transferIn)),
      list(3, () => new e.Output(addr(), big(), id()))),
  UnsignedExportTx: () =>
    new e.ExportTx(u32(), id(), id(), list(3, () => new e.Input(addr(), big(), id(), big())),
      list(3, tOut(transferOut))),
};

const managers = {
  P: utils.getManagerForVM('PVM'),
  X: utils.getManagerForVM('AVM'),
  C: utils.getManagerForVM('EVM'),
};

function emit(chain, type, unsigned) {
  // SignedTx.toBytes() picks the codec from unsigned.vm, which some avm classes (e.g.
  // CreateAssetTx) lack; pack the same way with the chain's codec instead.
  const codec = managers[chain].getDefaultCodec();
  const raw = utils.concatBytes(
    new a.Short(0).toBytes(),
    codec.PackPrefix(unsigned),
    codec.PackPrefixList(list(3, cred)),
  );
  const txId = utils.base58check.encode(createHash('sha256').update(raw).digest());
  process.stdout.write(
    JSON.stringify({ chain, type, hex: Buffer.from(raw).toString('hex'), id: txId }) + '\n',
  );
}

for (const [chain, table] of [['P', P], ['X', X], ['C', C]]) {
  for (const [type, build] of Object.entries(table)) {
    for (let i = 0; i < count; i++) emit(chain, type, build());
  }
}
