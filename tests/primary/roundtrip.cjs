// avalanchejs 5.2.0 reads our response IDs and addresses and writes them back: stdin is a JSON
// object {ids: [...cb58], addresses: [...bech32 with or without chain prefix]}; stdout is
// {ids: [re-encoded], idLengths: [...], addresses: [re-encoded]}.
'use strict';
const path = require('path');
const { utils } = require(path.join(process.argv[2], 'node_modules/@avalabs/avalanchejs'));
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const { ids, addresses } = JSON.parse(input);
  const idBytes = ids.map((s) => utils.base58check.decode(s));
  const out = {
    ids: idBytes.map((b) => utils.base58check.encode(b)),
    idLengths: idBytes.map((b) => b.length),
    addresses: addresses.map((a) => {
      const [chain, hrp, bytes] = a.includes('-') ? utils.parse(a) : [null, ...utils.parseBech32(a)];
      return chain ? utils.format(chain, hrp, bytes) : utils.formatBech32(hrp, bytes);
    }),
  };
  process.stdout.write(JSON.stringify(out));
});
