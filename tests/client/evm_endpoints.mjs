// Calls every EVM endpoint of our Data API through the official SDK (@avalanche-sdk/chainkit
// 0.3.13), following nextPageToken across pages. Every response must parse with the SDK's own
// schemas. Usage: node evm_endpoints.mjs <serverURL> <json args>. Prints one JSON summary line;
// exits 1 on the first failure.

const sdk = new Avalanche({ enableTelemetry: false });
// Per-call options: the constructor's serverURL is ignored by every operation; no retries, so a
// 5XX fails at once instead of backing off for two minutes.
const { chainId, address, token721, token1155, token20, blockId } = args;
const evm = sdk.data.evm;

// [name, call, list key, paginated]
import { args, Avalanche, opts, recordStray, serverURL, stray } from "./sdk.mjs";

recordStray();
const calls = [
  ["chains.list", () => evm.chains.list({}, opts), "chains", false],
  ["chains.get", () => evm.chains.get({ chainId }, opts), null, false],
  ["blocks.listLatest", () => evm.blocks.listLatest({ chainId, pageSize: 3 }, opts), "blocks", true],
  ["blocks.listTransactions", () => evm.blocks.listTransactions({ chainId, blockId }, opts), "transactions", false],
  ["blocks.listTransactions(hash)", () => evm.blocks.listTransactions({ chainId, blockId: args.blockHash, pageSize: 100 }, opts), "transactions", false],
  ["transactions.listLatest", () => evm.transactions.listLatest({ chainId, pageSize: 5 }, opts), "transactions", true],
  ["transactions.listLatest(failed)", () => evm.transactions.listLatest({ chainId, pageSize: 5, status: "failed" }, opts), "transactions", true],
  ["address.transactions.listErc20", () => evm.address.transactions.listErc20({ chainId, address, pageSize: 4 }, opts), "transactions", true],
  ["address.transactions.listErc20(range)", () => evm.address.transactions.listErc20({ chainId, address, pageSize: 4, startBlock: 2, endBlock: 20 }, opts), "transactions", true],
  ["address.transactions.listErc721", () => evm.address.transactions.listErc721({ chainId, address, pageSize: 2 }, opts), "transactions", true],
  ["address.transactions.listErc1155", () => evm.address.transactions.listErc1155({ chainId, address, pageSize: 2 }, opts), "transactions", true],
  ["address.transactions.listInternal", () => evm.address.transactions.listInternal({ chainId, address, pageSize: 3 }, opts), "transactions", true],
  ["contracts.listTransfers(20)", () => evm.contracts.listTransfers({ chainId, address: token20, pageSize: 5 }, opts), "transfers", true],
  ["contracts.listTransfers(721)", () => evm.contracts.listTransfers({ chainId, address: token721, pageSize: 5 }, opts), "transfers", true],
  ["contracts.listTransfers(1155)", () => evm.contracts.listTransfers({ chainId, address: token1155, pageSize: 5 }, opts), "transfers", true],
  ["address.balances.listErc20", () => evm.address.balances.listErc20({ chainId, address, pageSize: 1, currency: "eur" }, opts), "erc20TokenBalances", true],
  ["address.balances.listErc20(block)", () => evm.address.balances.listErc20({ chainId, address, blockNumber: "5", filterSpamTokens: false, contractAddresses: token20 }, opts), "erc20TokenBalances", true],
  ["address.balances.listErc721", () => evm.address.balances.listErc721({ chainId, address, pageSize: 2 }, opts), "erc721TokenBalances", true],
  ["address.contracts.listDeployments", () => evm.address.contracts.listDeployments({ chainId, address, pageSize: 2 }, opts), "contracts", true],
  ["nfts.list(721)", () => sdk.data.nfts.list({ chainId, address: token721, pageSize: 3 }, opts), "tokens", true],
  ["nfts.list(1155)", () => sdk.data.nfts.list({ chainId, address: token1155, pageSize: 1 }, opts), "tokens", true],
  // Issue 20: the rest of the EVM Data API and the service operations.
  ["blocks.get", () => evm.blocks.get({ chainId, blockId }, opts), null, false],
  ["blocks.get(hash)", () => evm.blocks.get({ chainId, blockId: args.blockHash }, opts), null, false],
  ["transactions.get", () => evm.transactions.get({ chainId, txHash: args.txHash }, opts), null, false],
  ["address.transactions.list", () => evm.address.transactions.list({ chainId, address, pageSize: 4 }, opts), "transactions", true],
  ["address.transactions.list(asc)", () => evm.address.transactions.list({ chainId, address, pageSize: 9, sortOrder: "asc", startBlock: 3, endBlock: 25 }, opts), "transactions", true],
  ["address.transactions.listNative", () => evm.address.transactions.listNative({ chainId, address, pageSize: 5 }, opts), "transactions", true],
  ["address.balances.getNative", () => evm.address.balances.getNative({ chainId, address }, opts), null, false],
  ["address.balances.getNative(block)", () => evm.address.balances.getNative({ chainId, address, blockNumber: "4", currency: "eur" }, opts), null, false],
  ["address.balances.listErc1155", () => evm.address.balances.listErc1155({ chainId, address: args.holder1155, pageSize: 1 }, opts), "erc1155TokenBalances", true],
  ["address.balances.listCollectibles", () => evm.address.balances.listCollectibles({ chainId, address: args.holder1155, pageSize: 2 }, opts), "collectibleBalances", true],
  ["address.balances.listCollectibles(721)", () => evm.address.balances.listCollectibles({ chainId, address, pageSize: 2 }, opts), "collectibleBalances", true],
  ["contracts.getMetadata(20)", () => evm.contracts.getMetadata({ chainId, address: token20 }, opts), null, false],
  ["contracts.getMetadata(721)", () => evm.contracts.getMetadata({ chainId, address: token721 }, opts), null, false],
  ["contracts.getMetadata(created)", () => evm.contracts.getMetadata({ chainId, address: args.created }, opts), null, false],
  ["contracts.getDeploymentTransaction", () => evm.contracts.getDeploymentTransaction({ chainId, address: args.created }, opts), null, false],
  ["nfts.get(721)", () => sdk.data.nfts.get({ chainId, address: token721, tokenId: args.tokenId721 }, opts), null, false],
  ["nfts.get(1155)", () => sdk.data.nfts.get({ chainId, address: token1155, tokenId: args.tokenId1155 }, opts), null, false],
  ["nfts.reindex", () => sdk.data.nfts.reindex({ chainId, address: token721, tokenId: args.tokenId721 }, opts), null, false],
  ["address.chains.list", () => evm.address.chains.list({ address }, opts), "indexedChains", false],
  ["chains.getAddressChains", () => evm.chains.getAddressChains({ address }, opts), "indexedChains", false],
  ["transactions.listLatestAllChains", () => evm.transactions.listLatestAllChains({ pageSize: 20 }, opts), "transactions", true],
  ["chains.listAllLatestTransactions", () => evm.chains.listAllLatestTransactions({ pageSize: 20, status: "failed" }, opts), "transactions", true],
  ["blocks.listLatestAllChains", () => evm.blocks.listLatestAllChains({ pageSize: 4 }, opts), "blocks", true],
  ["chains.listAllLatestBlocks", () => evm.chains.listAllLatestBlocks({ pageSize: 4, network: "testnet" }, opts), "blocks", true],
  ["data.healthCheck", () => sdk.data.healthCheck(opts), null, false],
  ["data.liveCheck", () => sdk.data.liveCheck(opts), null, false],
  ["metrics.healthCheck", () => sdk.metrics.healthCheck(opts), null, false],
  ["metrics.liveCheck", () => sdk.metrics.liveCheck(opts), null, false],
];

const summary = {};
for (const [name, call, key, paginated] of calls) {
  try {
    const res = await call();
    let pages = 0;
    let items = 0;
    if (paginated) {
      for await (const page of res) {
        pages += 1;
        items += page.result[key].length;
        if (pages > 500) throw new Error("more than 500 pages");
      }
    } else {
      pages = 1;
      items = key ? res[key].length : 1;
    }
    summary[name] = { pages, items };
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name, error: String(err), detail: err?.rawValue ? undefined : err?.message, stray }));
    process.exit(1);
  }
}

// A typed error must come back for an unknown chain (the error body parses as NotFoundError).
try {
  await evm.blocks.listLatest({ chainId: "999999" }, opts);
  console.log(JSON.stringify({ ok: false, name: "unknown chain", error: "no error thrown" }));
  process.exit(1);
} catch (err) {
  summary["unknown chain"] = { error: err?.constructor?.name };
  if (err?.constructor?.name !== "NotFoundError") {
    console.log(JSON.stringify({ ok: false, name: "unknown chain", error: String(err) }));
    process.exit(1);
  }
}
// An unknown transaction is a 404 the SDK types as NotFoundError too.
try {
  await evm.transactions.get({ chainId, txHash: "0x" + "cd".repeat(32) }, opts);
  console.log(JSON.stringify({ ok: false, name: "unknown tx", error: "no error thrown" }));
  process.exit(1);
} catch (err) {
  summary["unknown tx"] = { error: err?.constructor?.name };
  if (err?.constructor?.name !== "NotFoundError") {
    console.log(JSON.stringify({ ok: false, name: "unknown tx", error: String(err) }));
    process.exit(1);
  }
}
// The SDK sends its apiKey as x-glacier-api-key; an unknown key is a 401 it types as
// UnauthorizedError (so the header reaches us and the error body parses).
try {
  const keyed = new Avalanche({ enableTelemetry: false, apiKey: "avd_unknown_key" });
  await keyed.data.evm.chains.list({}, opts);
  console.log(JSON.stringify({ ok: false, name: "unknown api key", error: "no error thrown" }));
  process.exit(1);
} catch (err) {
  summary["unknown api key"] = { error: err?.constructor?.name };
  if (err?.constructor?.name !== "UnauthorizedError") {
    console.log(JSON.stringify({ ok: false, name: "unknown api key", error: String(err) }));
    process.exit(1);
  }
}
console.log(JSON.stringify({ ok: stray.length === 0, summary, stray }));
process.exit(stray.length === 0 ? 0 : 1);
