// Decodes a stream of P-chain blocks with @avalabs/avalanchejs 5.2.0 and reports throughput.
// avalanchejs has no P-chain block types, so the block header (type ID, Banff time, parent ID,
// height, tx count) is read here and every embedded tx goes through avalanchejs's own
// SignedTx.fromBytes with the platformvm codec, which is where the work is.
// Usage: node bench-pblocks.cjs BLOCKS_HEX_FILE MIN_SECONDS  ->  {"txs", "blocks", "seconds"}
'use strict';
const fs = require('fs');
const a = require('@avalabs/avalanchejs');
const { avaxSerial: avax, utils } = a;

const codec = utils.getManagerForVM('PVM').getDefaultCodec();
const blocks = fs
  .readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => Uint8Array.from(Buffer.from(l.trim(), 'hex')));
const minSeconds = Number(process.argv[3] || 5);

const u32 = (b, o) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;

function txList(buf, count, sink) {
  let rest = buf;
  for (let i = 0; i < count; i++) {
    const [tx, r] = avax.SignedTx.fromBytes(rest, codec);
    sink.push(tx);
    rest = r;
  }
  return rest;
}

function decodeBlock(b) {
  const typeId = u32(b, 2);
  let o = 6;
  const txs = [];
  const banff = typeId >= 29 && typeId <= 32;
  if (banff) o += 8; // time
  if (typeId === 29) {
    const n = u32(b, o);
    o = b.length - txList(b.subarray(o + 4), n, txs).length;
  }
  o += 32 + 8; // parent ID, height
  if (typeId === 3 || typeId === 32) {
    txList(b.subarray(o + 4), u32(b, o), txs);
  } else if (typeId === 0 || typeId === 4 || typeId === 29) {
    txList(b.subarray(o), 1, txs);
  }
  return txs.length;
}

let txs = 0;
let rounds = 0;
const start = process.hrtime.bigint();
let seconds = 0;
do {
  for (const b of blocks) txs += decodeBlock(b);
  rounds++;
  seconds = Number(process.hrtime.bigint() - start) / 1e9;
} while (seconds < minSeconds);
process.stdout.write(JSON.stringify({ txs, blocks: blocks.length * rounds, seconds }) + '\n');
