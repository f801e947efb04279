// Search: what the text looks like decides where it can be; then the resource's own view.
// The API has no lookup by transaction hash yet, so a hash is looked for in each chain's
// transaction list, newest first (bounded by MAX_SCAN per chain).
import { collect } from "../api.js";
import { evmChains, PRIMARY, primaryNetwork, ptxPath } from "../chains.js";
import { h } from "../dom.js";

const MAX_SCAN = 20000;

export function kind(q) {
  if (/^0x[0-9a-fA-F]{64}$/.test(q)) return "evmTx";
  if (/^0x[0-9a-fA-F]{40}$/.test(q)) return "evmAddress";
  if (/^\d{1,18}$/.test(q)) return "block";
  if (/^NodeID-[1-9A-HJ-NP-Za-km-z]+$/.test(q)) return "node";
  if (/^([PXC]-)?(avax|fuji|local|custom)1[02-9ac-hj-np-z]{20,}$/.test(q)) return "primaryAddress";
  if (/^[1-9A-HJ-NP-Za-km-z]{40,60}$/.test(q)) return "primaryTx";
  return null;
}

// The EVM chain and block of a transaction hash, or null.
export async function findEvmTx(hash, chains) {
  const wanted = hash.toLowerCase();
  const found = await Promise.all(chains.map(async (c) => {
    let hit = null;
    await collect(`/v1/chains/${c.chainId}/transactions`, { pageSize: 100 }, "transactions", {
      limit: MAX_SCAN, stop: (tx) => (tx.txHash.toLowerCase() === wanted ? ((hit = tx), true) : false),
    });
    return hit && { chain: c.chainId, block: hit.blockNumber };
  }));
  return found.find((x) => x) || null;
}

export async function findPrimaryTx(id, net) {
  const found = await Promise.all(PRIMARY.map(async (c) => {
    let hit = null;
    await collect(ptxPath(net, c.key), { pageSize: 50 }, "transactions", {
      limit: MAX_SCAN, stop: (tx) => (tx.txHash === id ? ((hit = tx), true) : false),
    });
    return hit && c.key;
  }));
  return found.find((x) => x) || null;
}

function notFound(q, what) {
  return [h("h1", {}, "Search"), h("p", { role: "status" }, `No ${what} found for `, h("code", {}, q), ".")];
}

export async function search(params) {
  const q = (params.get("q") || "").trim();
  switch (kind(q)) {
    case "evmTx": {
      const at = await findEvmTx(q, await evmChains());
      if (!at) return notFound(q, "transaction");
      location.replace(`#/tx/${at.chain}/${q}?block=${at.block}`);
      return null;
    }
    case "evmAddress": location.replace(`#/address/${q}`); return null;
    case "block": location.replace(`#/block/${q}`); return null;
    case "node": location.replace(`#/node/${q}`); return null;
    case "primaryAddress": location.replace(`#/paddress/${q}`); return null;
    case "primaryTx": {
      const key = await findPrimaryTx(q, await primaryNetwork());
      if (!key) return notFound(q, "primary-network transaction");
      location.replace(`#/ptx/${key}/${q}`);
      return null;
    }
    default:
      return [h("h1", {}, "Search"), h("p", { role: "status" },
        "Enter a transaction hash (0x… or a P/X/C tx ID), an address (0x… or P-/X-fuji1…), a block number or a node ID (NodeID-…).")];
  }
}

