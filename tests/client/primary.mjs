// The official SDK (@avalanche-sdk/chainkit 0.3.13) against our primary-network routes: every
// page of the transactions and UTXO lists must parse with the SDK's own schemas.
// Usage: node primary.mjs <serverURL> <json args>. Prints one JSON line; exits 1 on failure.

const sdk = new Avalanche({ enableTelemetry: false });
const pn = sdk.data.primaryNetwork;
const { addresses, blockchainId } = args;
const network = "fuji";
// Optional: the addresses whose active stakes transactions.listActiveStakingTransactions pages.
const { stakingAddresses } = args;

const calls = [
  ["transactions.listLatest", () => pn.transactions.listLatest({ network, blockchainId, addresses, pageSize: 4 }, opts), "transactions"],
  ["transactions.listLatest(all)", () => pn.transactions.listLatest({ network, blockchainId, pageSize: 7 }, opts), "transactions"],
  ["utxos.listByAddresses", () => pn.utxos.listByAddresses({ network, blockchainId, addresses, includeSpent: true, pageSize: 3 }, opts), "utxos"],
];
if (stakingAddresses) {
  calls.push(["transactions.listActiveStakingTransactions", () => pn.transactions.listActiveStakingTransactions({ network, blockchainId: "p-chain", addresses: stakingAddresses, pageSize: 2 }, opts), "transactions"]);
}
// Optional: X-chain assets whose details and transactions (every page) the SDK fetches.
import { args, Avalanche, opts, recordStray, serverURL, stray } from "./sdk.mjs";

recordStray();
for (const assetId of args.assetIds ?? []) {
  calls.push([`transactions.listAssetTransactions ${assetId}`, () => pn.transactions.listAssetTransactions({ network, blockchainId: "x-chain", assetId, pageSize: 3 }, opts), "transactions"]);
}
// Optional: the chain's blocks, every page, and one block by ID (`blockIds`).
if (args.blocks) {
  calls.push(["blocks.listLatest", () => pn.blocks.listLatest({ network, blockchainId, pageSize: 25 }, opts), "blocks"]);
}
// Optional: the X-chain's vertices, every page, and every vertex at one height.
if (args.vertexHeight !== undefined) {
  calls.push(["vertices.listLatest", () => pn.vertices.listLatest({ network, blockchainId: "x-chain", pageSize: 4 }, opts), "vertices"]);
  calls.push(["vertices.listByHeight", () => pn.vertices.listByHeight({ network, blockchainId: "x-chain", vertexHeight: args.vertexHeight, pageSize: 1 }, opts), "vertices"]);
}
// Optional: the subnets and blockchains, every page.
if (args.subnets) {
  calls.push(["listSubnets", () => pn.listSubnets({ network, pageSize: 2 }, opts), "subnets"]);
  calls.push(["listBlockchains", () => pn.listBlockchains({ network, pageSize: 2 }, opts), "blockchains"]);
}
const summary = {};
for (const [name, call, key] of calls) {
  try {
    let pages = 0;
    let items = 0;
    // What survived the SDK's parse tells which union branch took the page (unknown keys
    // are dropped): X-chain txs keep chainFormat, C-chain atomic txs evmInputs/evmOutputs,
    // X/C Utxos creationTxHash,
    // P-chain L1 txs l1ValidatorDetails; nft counts items holding an NFT UTXO with its
    // groupId, publicKey C-chain txs whose EVM input credentials kept one.
    const kept = { chainFormat: 0, evm: 0, creationTxHash: 0, l1: 0, nft: 0, publicKey: 0 };
    for await (const page of await call()) {
      pages += 1;
      items += page.result[key].length;
      for (const item of page.result[key]) {
        if ("chainFormat" in item) kept.chainFormat += 1;
        if ("evmInputs" in item || "evmOutputs" in item) kept.evm += 1;
        if ("creationTxHash" in item) kept.creationTxHash += 1;
        if ("l1ValidatorDetails" in item) kept.l1 += 1;
        const utxos = [item, ...(item.emittedUtxos ?? []), ...(item.consumedUtxos ?? [])];
        if (utxos.some((u) => "groupId" in u)) kept.nft += 1;
        const creds = (item.evmInputs ?? []).flatMap((i) => i.credentials ?? []);
        if (creds.some((cr) => "publicKey" in cr)) kept.publicKey += 1;
      }
      if (pages > 500) throw new Error("more than 500 pages");
    }
    summary[name] = { pages, items, kept };
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000), stray }));
    process.exit(1);
  }
}
// Optional: [blockchainId, txHash] pairs fetched one by one (transactions.get); what survived
// the SDK's parse tells the branch: chainFormat (X), evmInputs/evmOutputs (C), txType.
for (const [chain, txHash] of args.txHashes ?? []) {
  try {
    const tx = await pn.transactions.get({ network, blockchainId: chain, txHash }, opts);
    const kept = "chainFormat" in tx ? "x" : "evmInputs" in tx || "evmOutputs" in tx ? "c" : "p";
    summary.get = summary.get ?? {};
    summary.get[txHash] = { txHash: tx.txHash, txType: tx.txType, kept };
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name: `transactions.get ${txHash}`, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000), stray }));
    process.exit(1);
  }
}
for (const assetId of args.assetIds ?? []) {
  try {
    const details = await pn.getAssetDetails({ network, blockchainId: "x-chain", assetId }, opts);
    summary.assets = summary.assets ?? {};
    summary.assets[assetId] = details;
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name: `getAssetDetails ${assetId}`, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000), stray }));
    process.exit(1);
  }
}
for (const blockId of args.blockIds ?? []) {
  try {
    const block = await pn.blocks.get({ network, blockchainId, blockId }, opts);
    summary.blocks = summary.blocks ?? {};
    summary.blocks[blockId] = { blockHash: block.blockHash, proposer: block.proposerDetails ?? null };
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name: `blocks.get ${blockId}`, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000), stray }));
    process.exit(1);
  }
}
if (args.networkDetails) {
  try {
    summary.networkDetails = await pn.getNetworkDetails({ network }, opts);
  } catch (err) {
    console.log(JSON.stringify({ ok: false, name: "getNetworkDetails", error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000), stray }));
    process.exit(1);
  }
}
console.log(JSON.stringify({ ok: stray.length === 0, summary, stray }));
process.exit(stray.length === 0 ? 0 : 1);
