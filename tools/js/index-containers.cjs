// Reads every container of a node's Index API and parses it with @avalabs/avalanchejs 5.2.0,
// independently of avadata's Python codec. Usage: node index-containers.cjs NODE_URL
// Prints one JSON line per container:
//   {"index": "P/block", "i": "0", "id": <the ID the node reported>,
//    "computedId": <CB58 ID computed here from the bytes>, "txIds": [<CB58 tx IDs>]}
// or {"index", "i", "error"} when the bytes do not parse.
// avalanchejs has no block types (P, X or proposervm) and no RLP, so the few header fields
// around the transactions are read here; every transaction goes through avalanchejs's own
// SignedTx parser with the VM's codec, and every ID is sha256 as avalanchego defines it.
'use strict';
const { createHash } = require('crypto');
const a = require('@avalabs/avalanchejs');
const { avaxSerial: avax, utils } = a;

const codecs = {
  P: utils.getManagerForVM('PVM').getDefaultCodec(),
  X: utils.getManagerForVM('AVM').getDefaultCodec(),
  C: utils.getManagerForVM('EVM').getDefaultCodec(),
};
const sha = (b) => createHash('sha256').update(b).digest();
const cb58 = (b) => utils.base58check.encode(Uint8Array.from(b));
const u32 = (b, o) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
const VERSION = Uint8Array.from([0, 0]);

// n signed txs laid out back to back (no version prefix each): their IDs, and what follows
function txList(chain, buf, n, ids) {
  let rest = buf;
  for (let i = 0; i < n; i++) {
    const [, r] = avax.SignedTx.fromBytes(rest, codecs[chain]);
    const raw = rest.subarray(0, rest.length - r.length);
    ids.push(cb58(sha(utils.concatBytes(VERSION, raw))));
    rest = r;
  }
  return rest;
}

// proposervm: statelessBlock (0), option (1), statelessGraniteBlock (2) -> [ID, inner bytes]
function unwrap(b) {
  const type = u32(b, 2);
  if (type === 1) {
    const len = u32(b, 38);
    if (42 + len !== b.length) throw new Error('option block length');
    return [cb58(sha(b)), b.subarray(42, 42 + len)];
  }
  if (type !== 0 && type !== 2) throw new Error(`proposervm type ${type}`);
  let o = 6 + 32 + 8 + 8;
  o += 4 + u32(b, o); // certificate
  const len = u32(b, o);
  const inner = b.subarray(o + 4, o + 4 + len);
  o += 4 + len;
  if (type === 2) o += 24; // epoch
  const sigLen = u32(b, o);
  if (o + 4 + sigLen !== b.length) throw new Error('statelessBlock length');
  return [cb58(sha(b.subarray(0, o))), inner];
}

function pBlock(b, ids) {
  const type = u32(b, 2);
  let o = 6;
  if (type < 29 || type > 32) throw new Error(`not a Banff block: type ${type}`);
  o += 8; // time
  if (type === 29) o = b.length - txList('P', b.subarray(o + 4), u32(b, o), ids).length;
  o += 32 + 8; // parent, height
  if (type === 32) txList('P', b.subarray(o + 4), u32(b, o), ids);
  else if (type === 29) txList('P', b.subarray(o), 1, ids);
  return cb58(sha(b));
}

function xBlock(b, ids) {
  const o = 6 + 32 + 8 + 8 + 32; // version, type, parent, height, time, merkle root
  const rest = txList('X', b.subarray(o + 4), u32(b, o), ids);
  if (rest.length) throw new Error('trailing bytes after the X block txs');
  return cb58(sha(b));
}

function vertex(b, ids) {
  const version = (b[0] << 8) | b[1];
  if (version === 1) {
    // the Cortina stop vertex (codec version 1): chain ID, height, parent IDs; no epoch, no txs
    const o = 2 + 32 + 8;
    if (o + 4 + 32 * u32(b, o) !== b.length) throw new Error('stop vertex length');
    return cb58(sha(b));
  }
  let o = 2 + 32 + 8 + 4; // version, chain ID, height, epoch
  o += 4 + 32 * u32(b, o); // parent IDs
  const n = u32(b, o);
  o += 4;
  for (let i = 0; i < n; i++) {
    const len = u32(b, o);
    xTx(b.subarray(o + 4, o + 4 + len), ids);
    o += 4 + len;
  }
  if (o !== b.length) throw new Error('trailing bytes after the vertex txs');
  return cb58(sha(b));
}

function xTx(b, ids) {
  const rest = txList('X', b.subarray(2), 1, ids);
  if (rest.length) throw new Error('trailing bytes after the X tx');
  return ids[ids.length - 1];
}

// minimal RLP: [value, next offset]; a list's value is an array of its items
function rlp(b, o) {
  const p = b[o];
  if (p < 0x80) return [b.subarray(o, o + 1), o + 1];
  const long = (n, at) => Number(b.subarray(at, at + n).reduce((x, y) => x * 256 + y, 0));
  if (p < 0xb8) return [b.subarray(o + 1, o + 1 + p - 0x80), o + 1 + p - 0x80];
  if (p < 0xc0) {
    const n = long(p - 0xb7, o + 1);
    const s = o + 1 + p - 0xb7;
    return [b.subarray(s, s + n), s + n];
  }
  let s;
  let end;
  if (p < 0xf8) {
    s = o + 1;
    end = s + p - 0xc0;
  } else {
    s = o + 1 + p - 0xf7;
    end = s + long(p - 0xf7, o + 1);
  }
  const items = [];
  while (s < end) {
    const [v, next] = rlp(b, s);
    items.push(v);
    s = next;
  }
  return [items, end];
}

function cBlock(b, ids) {
  const [block, end] = rlp(b, 0);
  if (end !== b.length || block.length !== 5) throw new Error('not a coreth block');
  const ext = block[4];
  if (ext.length) {
    // post-ApricotPhase5 extData: codec version, then the list of signed atomic txs
    txList('C', ext.subarray(6), u32(ext, 2), ids);
  }
}

// a proposervm-wrapped block: the container ID is the wrapper's; the inner block is parsed
const wrapped = (parseInner) => (b, ids) => {
  const [id, inner] = unwrap(b);
  parseInner(inner, ids);
  return id;
};

const parsers = {
  'P/block': wrapped(pBlock),
  'X/block': wrapped(xBlock),
  'C/block': wrapped(cBlock),
  'X/vtx': vertex,
  'X/tx': (b, ids) => xTx(b, ids),
};

async function call(url, method, params) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}

async function main() {
  const node = process.argv[2];
  for (const index of Object.keys(parsers)) {
    const url = `${node}/ext/index/${index}`;
    for (let start = 0; ; ) {
      const answer = await call(url, 'index.getContainerRange', {
        startIndex: start,
        numToFetch: 1024,
        encoding: 'hex',
      });
      if (answer.error) break; // past the end (or an empty index)
      for (const c of answer.result.containers) {
        const withSum = Buffer.from(c.bytes.slice(2), 'hex');
        const bytes = Uint8Array.from(withSum.subarray(0, withSum.length - 4));
        const out = { index, i: c.index, id: c.id };
        try {
          if (!sha(bytes).subarray(28).equals(withSum.subarray(withSum.length - 4))) {
            throw new Error('bad checksum');
          }
          const txIds = [];
          out.computedId = parsers[index](bytes, txIds);
          out.txIds = txIds;
        } catch (err) {
          out.error = String(err && err.message ? err.message : err).slice(0, 200);
        }
        process.stdout.write(JSON.stringify(out) + '\n');
      }
      start += answer.result.containers.length;
    }
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
