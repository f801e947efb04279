// Parses signed transactions with @avalabs/avalanchejs 5.2.0. Reads JSON lines
// {"chain": "P"|"X"|"C", "hex": ...} on stdin and prints one JSON line per input:
// {"ok": true, "type": <avalanchejs type symbol>, "hex": <bytes avalanchejs re-serializes>,
//  "id": CB58(sha256(those bytes))} or {"ok": false, "error": ...}.
'use strict';
const { createHash } = require('crypto');
const readline = require('readline');
const a = require('@avalabs/avalanchejs');
const { avaxSerial: avax, utils } = a;

const managers = {
  P: utils.getManagerForVM('PVM'),
  X: utils.getManagerForVM('AVM'),
  C: utils.getManagerForVM('EVM'),
};

function parse(chain, hex) {
  const manager = managers[chain];
  const tx = manager.unpack(Uint8Array.from(Buffer.from(hex, 'hex')), avax.SignedTx);
  const codec = manager.getDefaultCodec();
  const raw = utils.concatBytes(
    new a.Short(0).toBytes(),
    codec.PackPrefix(tx.unsignedTx),
    codec.PackPrefixList(tx.credentials),
  );
  return {
    ok: true,
    type: tx.unsignedTx._type,
    hex: Buffer.from(raw).toString('hex'),
    id: utils.base58check.encode(createHash('sha256').update(raw).digest()),
  };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const { chain, hex } = JSON.parse(line);
  let out;
  try {
    out = parse(chain, hex);
  } catch (err) {
    out = { ok: false, error: String(err && err.message ? err.message : err).slice(0, 200) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
