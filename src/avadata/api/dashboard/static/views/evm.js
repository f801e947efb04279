// EVM resources: a transaction, a block, an address; each links to the others.
import { get } from "../api.js";
import { evmChains } from "../chains.js";
import { errorText, fields, h, link, num, short, table, units, when } from "../dom.js";
import { findEvmTx } from "./search.js";

export const evmTxLink = (chain, tx) =>
  link(`#/tx/${chain}/${tx.txHash}?block=${tx.blockNumber}`, short(tx.txHash), tx.txHash);
export const addrLink = (a) => (a && a.address ? link(`#/address/${a.address}`, short(a.address), a.address) : "—");
export const blockLink = (chain, n) => link(`#/block/${n}?chain=${chain}`, num(n));
const wei = (v) => units(v ?? "0", 18, "AVAX");

function chainName(chains, id) {
  const c = chains.find((x) => x.chainId === id);
  return c ? `${c.name} (${id})` : id;
}

export async function evmTx(chain, hash, params) {
  const chains = await evmChains();
  let block = params.get("block");
  if (!block) {
    const at = await findEvmTx(hash, chains.filter((c) => c.chainId === chain));
    if (!at) return [h("h1", {}, "Transaction"), h("p", { role: "status" }, "Not found on this chain.")];
    block = at.block;
  }
  const { transactions } = await get(`/v1/chains/${chain}/blocks/${block}/transactions`, { pageSize: 0 });
  const tx = transactions.find((t) => t.txHash.toLowerCase() === hash.toLowerCase());
  if (!tx) return [h("h1", {}, "Transaction"), h("p", { role: "status" }, `Not in block ${block}.`)];
  const fee = BigInt(tx.gasUsed || 0) * BigInt(tx.gasPrice || 0);
  return [
    h("h1", {}, "Transaction"),
    fields([
      ["Hash", h("code", { "data-field": "txHash" }, tx.txHash)],
      ["Chain", chainName(chains, chain)],
      ["Status", h("span", { class: tx.txStatus === "1" ? "ok" : "error" }, tx.txStatus === "1" ? "success" : "failed")],
      ["Block", blockLink(chain, tx.blockNumber)],
      ["Time", when(tx.blockTimestamp)],
      ["From", addrLink(tx.from)],
      ["To", addrLink(tx.to)],
      ["Value", wei(tx.value)],
      ["Method", tx.method ? tx.method.methodName || tx.method.methodHash || tx.method.callType : "—"],
      ["Gas used / limit", `${num(tx.gasUsed)} / ${num(tx.gasLimit)}`],
      ["Gas price", units(tx.gasPrice || "0", 9, "gwei")],
      ["Fee", wei(fee.toString())],
      ["Type, nonce, index", `${tx.txType}, ${tx.nonce}, ${tx.blockIndex ?? "—"}`],
    ]),
  ];
}

function blockTxTable(chain, txs) {
  return table(`Transactions of block`, ["Tx", "From", "To", { label: "Value", num: true }, "Status"],
    txs.map((t) => [evmTxLink(chain, t), addrLink(t.from), addrLink(t.to), wei(t.value), t.txStatus === "1" ? "success" : "failed"]));
}

export async function block(n, params) {
  const chains = await evmChains();
  const only = params.get("chain");
  const out = [h("h1", {}, `Block ${num(n)}`)];
  for (const c of chains.filter((x) => !only || x.chainId === only)) {
    const top = (await get(`/v1/chains/${c.chainId}/blocks`, { pageSize: 1 })).blocks[0];
    out.push(h("h2", {}, chainName(chains, c.chainId)));
    if (!top || Number(top.blockNumber) < Number(n)) {
      out.push(h("p", { class: "muted" }, "Not indexed yet on this chain."));
      continue;
    }
    const { transactions } = await get(`/v1/chains/${c.chainId}/blocks/${n}/transactions`, { pageSize: 0 });
    const first = transactions[0];
    out.push(fields([
      ["Hash", first ? h("code", {}, first.blockHash) : "—"],
      ["Time", first ? when(first.blockTimestamp) : "—"],
      ["Transactions", num(transactions.length)],
      ["Neighbours", [Number(n) > 0 ? link(`#/block/${Number(n) - 1}?chain=${c.chainId}`, "previous") : null, " ",
        Number(n) < Number(top.blockNumber) ? link(`#/block/${Number(n) + 1}?chain=${c.chainId}`, "next") : null]],
    ]));
    if (transactions.length) out.push(blockTxTable(c.chainId, transactions));
  }
  return out;
}

async function addressOnChain(c, address) {
  const base = `/v1/chains/${c.chainId}/addresses/${address}`;
  const [bal, erc20, internals] = await Promise.all([
    get(`${base}/balances:listErc20`, { pageSize: 20 }),
    get(`${base}/transactions:listErc20`, { pageSize: 10 }),
    get(`${base}/transactions:listInternals`, { pageSize: 10 }),
  ]);
  const out = [h("h2", {}, `${c.name} (${c.chainId})`)];
  const native = bal.nativeTokenBalance;
  out.push(fields([
    ["Balance", native ? units(native.balance, native.decimals, native.symbol) : "—"],
    ...bal.erc20TokenBalances.map((t) => [t.symbol || short(t.address), units(t.balance, t.decimals, t.symbol)]),
  ]));
  if (erc20.transactions.length) {
    out.push(h("h3", {}, "ERC-20 transfers"), table(`ERC-20 transfers on ${c.name}`,
      ["Tx", "Block", "From", "To", { label: "Amount", num: true }],
      erc20.transactions.map((t) => [evmTxLink(c.chainId, t), blockLink(c.chainId, t.blockNumber), addrLink(t.from), addrLink(t.to),
        units(t.value, t.erc20Token.decimals, t.erc20Token.symbol)])));
  }
  if (internals.transactions.length) {
    out.push(h("h3", {}, "Internal transactions"), table(`Internal transactions on ${c.name}`,
      ["Tx", "Block", "From", "To", { label: "Value", num: true }],
      internals.transactions.map((t) => [evmTxLink(c.chainId, t), blockLink(c.chainId, t.blockNumber), addrLink(t.from), addrLink(t.to), wei(t.value)])));
  }
  return out;
}

export async function address(addr) {
  const chains = await evmChains();
  const parts = await Promise.all(chains.map((c) => addressOnChain(c, addr).catch((e) => [errorText(e)])));
  return [
    h("h1", {}, "Address"), h("p", {}, h("code", {}, addr)),
    h("p", { class: "muted" }, "The API lists an address's ERC transfers and internal transactions; its plain transactions are not served by address yet."),
    ...parts.flat(),
  ];
}
