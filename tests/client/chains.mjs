// The chains' identity through the official SDK (@avalanche-sdk/chainkit 0.3.13): the Data
// API's chain listing (every network filter) and one chain by EVM chain ID and by blockchain
// ID, an EVM route addressed by blockchain ID, the Metrics API's listing (every filter), and
// an unknown chain by either ID (a typed NotFoundError). Every response must parse with the
// SDK's schemas. Usage: node chains.mjs <serverURL> <json args>. Prints one JSON line.
import { args, Avalanche, opts, recordStray, serverURL, stray } from "./sdk.mjs";

recordStray();

const sdk = new Avalanche({ enableTelemetry: false });
const out = { ok: true, data: {}, metrics: {}, errors: {} };

try {
  for (const network of [undefined, "mainnet", "fuji", "testnet"]) {
    const res = await sdk.data.evm.chains.list(network ? { network } : {}, opts);
    out.data[network ?? "all"] = res.chains;
    const metrics = await sdk.metrics.chains.list(network ? { network } : {}, opts);
    const chains = [];
    for await (const page of metrics) chains.push(...page.result.chains);
    out.metrics[network ?? "all"] = chains;
  }
  out.byChainId = await sdk.data.evm.chains.get({ chainId: args.chainId }, opts);
  out.byBlockchainId = await sdk.data.evm.chains.get({ chainId: args.blockchainId }, opts);
  const blocks = await sdk.data.evm.blocks.listLatest({ chainId: args.blockchainId, pageSize: 2 }, opts);
  out.blocksByBlockchainId = blocks.result.blocks.map((b) => b.blockNumber);
  for (const chainId of ["999999", "2ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"]) {
    try {
      await sdk.data.evm.chains.get({ chainId }, opts);
      out.errors[chainId] = "none";
    } catch (err) {
      out.errors[chainId] = err?.constructor?.name ?? String(err);
    }
  }
} catch (err) {
  out.ok = false;
  out.error = String(err);
}
out.stray = stray;
console.log(JSON.stringify(out));
