// The official SDK (@avalanche-sdk/chainkit 0.3.13) against our primary-network address routes
// and the AVAX supply: every answer must parse with the SDK's own schemas. Prints one JSON
// line with what the SDK parsed (the test compares it with its own truth); exits 1 on failure.
// Usage: node addresses.mjs <serverURL> <json args: toolsDir, addresses {p-chain, x-chain, c-chain}>.
import { args, Avalanche, opts, recordStray, serverURL, stray } from "./sdk.mjs";

recordStray();

const sdk = new Avalanche({ enableTelemetry: false });
const pn = sdk.data.primaryNetwork;
const network = "fuji";

async function pages(call, key) {
  const items = [];
  let count = 0;
  for await (const page of await call()) {
    count += 1;
    items.push(...page.result[key].map((u) => u.utxoId));
    if (count > 500) throw new Error("more than 500 pages");
  }
  return { pages: count, utxoIds: items };
}

const out = { balances: {}, lastActivity: {}, lastActivityV2: {}, utxosV2: {} };
const steps = [];
for (const [blockchainId, addresses] of Object.entries(args.addresses)) {
  const body = { addresses };
  steps.push([`balances ${blockchainId}`, async () => {
    out.balances[blockchainId] = await pn.balances.listByAddresses({ network, blockchainId, addresses }, opts);
  }]);
  steps.push([`lastActivity ${blockchainId}`, async () => {
    out.lastActivity[blockchainId] = await pn.utxos.getLastActivityTimestampByAddresses({ network, blockchainId, addresses }, opts);
  }]);
  steps.push([`lastActivityV2 ${blockchainId}`, async () => {
    out.lastActivityV2[blockchainId] = await pn.utxos.getLastActivityTimestampByAddressesV2({ network, blockchainId, primaryNetworkAddressesBodyDto: body }, opts);
  }]);
  if (blockchainId !== "c-chain") {
    steps.push([`utxos.listByAddressesV2 ${blockchainId}`, async () => {
      out.utxosV2[blockchainId] = await pages(() => pn.utxos.listByAddressesV2({ network, blockchainId, includeSpent: true, pageSize: 3, primaryNetworkAddressesBodyDto: body }, opts), "utxos");
    }]);
  }
}
steps.push(["getChainIdsForAddresses", async () => {
  out.chainIds = await pn.getChainIdsForAddresses({ network, addresses: args.addresses["p-chain"] }, opts);
}]);
steps.push(["avaxSupply.get", async () => {
  out.supply = await sdk.avaxSupply.get(opts);
}]);
for (const [name, step] of steps) {
  try {
    await step();
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000), stray }));
    process.exit(1);
  }
}
console.log(JSON.stringify({ ok: stray.length === 0, ...out, stray }));
process.exit(stray.length === 0 ? 0 : 1);
