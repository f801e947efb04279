// What every view needs to know first: the indexed EVM chains (Data API's /v1/chains joined
// with the Metrics API's /v2/chains for the network) and the primary network's name.
import { get } from "./api.js";

let cached = null;
let cachedAt = 0;

export function evmChains() {
  if (!cached || Date.now() - cachedAt > 60000) {
    cachedAt = Date.now();
    cached = Promise.all([get("/v1/chains"), get("/v2/chains")]).then(([data, metrics]) => {
      const network = new Map(metrics.chains.map((c) => [String(c.evmChainId), c.network]));
      return data.chains.map((c) => ({
        chainId: c.chainId,
        name: c.chainName,
        network: network.get(c.chainId) || (c.isTestnet ? "testnet" : "mainnet"),
        blockchainId: c.platformChainId || "",
      }));
    });
    cached.catch(() => { cached = null; });
  }
  return cached;
}

// The primary network's name in the API's paths: the P/X/C store is one network, and its
// addresses are spelled with that network's prefix; devnets and test stores are fuji.
export async function primaryNetwork() {
  const chains = await evmChains();
  const mainnet = chains.length > 0 && chains.every((c) => c.network === "mainnet");
  return mainnet ? "mainnet" : "fuji";
}

export const PRIMARY = [
  { key: "P", id: "p-chain", name: "P-Chain" },
  { key: "X", id: "x-chain", name: "X-Chain" },
  { key: "C", id: "c-chain", name: "C-Chain (atomic)" },
];

export const primaryChain = (key) => PRIMARY.find((c) => c.key === key);

export function ptxPath(net, key) {
  return `/v1/networks/${net}/blockchains/${primaryChain(key).id}/transactions`;
}
