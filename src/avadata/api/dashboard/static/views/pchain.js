// Primary-network resources: a P/X/C transaction, a P/X/C address, a node (validator).
import { collect, get } from "../api.js";
import { PRIMARY, primaryChain, primaryNetwork, ptxPath } from "../chains.js";
import { avax, errorText, fields, h, link, num, short, table, units, when } from "../dom.js";
import { nodeLink, staked, txLink, txTable } from "./primary.js";
import { findPrimaryTx } from "./search.js";

const paddrLink = (a) => link(`#/paddress/${a}`, short(a, 12), a);

function amounts(list) {
  if (!list || !list.length) return "—";
  return list.map((a) => units(a.amount, a.denomination ?? 9, a.symbol || short(a.assetId, 6))).join(", ");
}

function utxoTable(label, utxos) {
  return table(label, ["UTXO", "Owners", { label: "Amount", num: true }, "Spent by"],
    utxos.map((u) => [
      h("span", { class: "mono", title: u.utxoId }, short(u.utxoId, 8)),
      (u.addresses || []).map((a, i) => [i ? ", " : "", paddrLink(a)]),
      u.asset ? units(u.asset.amount, u.asset.denomination ?? 9, u.asset.symbol) : avax(u.amount),
      u.consumingTxHash ? link(`#/search?q=${u.consumingTxHash}`, short(u.consumingTxHash, 8), u.consumingTxHash) : "unspent",
    ]));
}

async function fetchTx(net, key, id) {
  // No lookup by ID is served: the tx is found in its chain's list, newest first.
  let hit = null;
  await collect(ptxPath(net, key), { pageSize: 50 }, "transactions", {
    limit: 20000, stop: (tx) => (tx.txHash === id ? ((hit = tx), true) : false),
  });
  return hit;
}

export async function ptx(key, id) {
  const net = await primaryNetwork();
  const chainKey = primaryChain(key) ? key : await findPrimaryTx(id, net);
  const tx = chainKey && (await fetchTx(net, chainKey, id));
  if (!tx) return [h("h1", {}, "Transaction"), h("p", { role: "status" }, "Not found.")];
  const out = [
    h("h1", {}, `${primaryChain(chainKey).name} transaction`),
    fields([
      ["ID", h("code", { "data-field": "txHash" }, tx.txHash)],
      ["Type", tx.txType],
      ["Block", `${num(tx.blockNumber)} (${short(tx.blockHash || "", 8)})`],
      ["Time", when(tx.blockTimestamp)],
      tx.nodeId ? ["Node", nodeLink(tx.nodeId)] : null,
      tx.startTimestamp ? ["Period", `${when(tx.startTimestamp)} to ${when(tx.endTimestamp)}`] : null,
      tx.amountStaked && tx.amountStaked.length ? ["Staked", avax(staked(tx).toString())] : null,
      tx.estimatedReward ? ["Estimated reward", avax(tx.estimatedReward)] : null,
      ["Value", amounts(tx.value)],
      ["Burned", amounts(tx.amountBurned)],
      tx.subnetId ? ["Subnet", h("code", {}, tx.subnetId)] : null,
      tx.memo ? ["Memo", tx.memo] : null,
    ]),
  ];
  for (const d of tx.l1ValidatorDetails || []) {
    out.push(h("h2", {}, "L1 validator"), fields([
      ["Validation", h("code", {}, d.validationId)], ["Node", d.nodeId ? nodeLink(d.nodeId) : "—"],
      ["Weight", num(d.weight)], ["Remaining balance", avax(d.remainingBalance)],
    ]));
  }
  if (tx.consumedUtxos && tx.consumedUtxos.length) out.push(h("h2", {}, "Consumed UTXOs"), utxoTable("Consumed UTXOs", tx.consumedUtxos));
  if (tx.emittedUtxos && tx.emittedUtxos.length) out.push(h("h2", {}, "Emitted UTXOs"), utxoTable("Emitted UTXOs", tx.emittedUtxos));
  return out;
}

export async function paddress(addr) {
  const net = await primaryNetwork();
  const bare = addr.replace(/^[PXC]-/, "");
  const out = [h("h1", {}, "Primary-network address"), h("p", {}, h("code", {}, bare))];
  const parts = await Promise.all(PRIMARY.map(async (c) => {
    try {
      const page = await get(ptxPath(net, c.key), { addresses: bare, pageSize: 10 });
      const section = [h("h2", {}, c.name)];
      if (c.key !== "C") {
        const utxos = await get(`/v1/networks/${net}/blockchains/${c.id}/utxos`, { addresses: bare, pageSize: 100 });
        const total = utxos.utxos.reduce((a, u) => a + BigInt(u.amount), 0n);
        section.push(fields([["Unspent UTXOs", `${num(utxos.utxos.length)}${utxos.nextPageToken ? "+" : ""}`], ["Their amount", avax(total.toString())]]));
      }
      section.push(page.transactions.length ? txTable(c.key, `${c.name} transactions of the address`, page.transactions) : h("p", { class: "muted" }, "No transactions."));
      return section;
    } catch (e) {
      return [h("h2", {}, c.name), errorText(e)];
    }
  }));
  return [...out, ...parts.flat()];
}

export async function node(id) {
  const net = await primaryNetwork();
  const { validators } = await get(`/v1/networks/${net}/validators/${id}`, { pageSize: 100 });
  const out = [h("h1", {}, "Node"), h("p", {}, h("code", {}, id))];
  if (!validators.length) return [...out, h("p", { role: "status" }, "No validation period of this node is indexed.")];
  for (const v of validators) {
    const rewards = v.potentialRewards || v.rewards;
    out.push(h("h2", {}, `${v.validationStatus} validation, ${when(v.startTimestamp)} to ${when(v.endTimestamp)}`), fields([
      ["Added by", link(`#/ptx/P/${v.txHash}`, short(v.txHash, 8), v.txHash)],
      ["Stake", avax(v.amountStaked)],
      v.amountDelegated !== undefined ? ["Delegated", `${avax(v.amountDelegated)} in ${num(v.delegatorCount)} delegations`] : null,
      v.uptimePerformance !== undefined ? ["Uptime", `${num(v.uptimePerformance)} %`] : null,
      v.stakePercentage !== undefined ? ["Share of stake", `${num(v.stakePercentage)} %`] : null,
      rewards ? [v.potentialRewards ? "Potential reward" : "Reward", avax(rewards.validationRewardAmount)] : null,
      v.delegationFee ? ["Delegation fee", `${v.delegationFee} %`] : null,
      v.removeTxHash ? ["Removed by", link(`#/ptx/P/${v.removeTxHash}`, short(v.removeTxHash, 8), v.removeTxHash)] : null,
    ]));
  }
  return out;
}
