// Primary network: current validators and L1 validators as the API lists them
// (listValidators, listL1Validators), and the newest P-, X- and C-chain (atomic) transactions.
import { collect, get } from "../api.js";
import { PRIMARY, primaryNetwork, ptxPath } from "../chains.js";
import { age, avax, errorText, h, link, now, num, short, table, when } from "../dom.js";

const PRIMARY_SUBNET = "11111111111111111111111111111111LpoYY";
const MAX_NODES = 40;

export const txLink = (key, tx) => link(`#/ptx/${key}/${tx.txHash}`, short(tx.txHash, 8), tx.txHash);
export const nodeLink = (id) => link(`#/node/${id}`, short(id, 12), id);

export function staked(tx) {
  return (tx.amountStaked || []).reduce((a, x) => a + BigInt(x.amount), 0n);
}

async function validatorsSection(net, t) {
  const query = { pageSize: 100, validationStatus: "active", subnetId: PRIMARY_SUBNET };
  const { items, complete } = await collect(`/v1/networks/${net}/validators`, query, "validators");
  const shown = items.slice(0, MAX_NODES);
  const rows = shown.map((v) => [
    nodeLink(v.nodeId), avax(v.amountStaked), num(v.delegatorCount), `${num(v.uptimePerformance)} %`,
    avax(v.potentialRewards.validationRewardAmount), avax(v.delegationCapacity ?? null),
    when(v.startTimestamp), `${when(v.endTimestamp)} (${age(v.endTimestamp - t)} left)`, txLink("P", v),
  ]);
  const headers = ["Node", { label: "Stake", num: true }, { label: "Delegations", num: true },
    { label: "Uptime", num: true }, { label: "Potential reward", num: true },
    { label: "Delegation capacity", num: true }, "Start", "End", "Added by"];
  return [
    h("h2", { id: "validators" }, `Current validators (${num(items.length)}${complete ? "" : "+"})`),
    items.length > shown.length ? h("p", { class: "muted" }, `The first ${MAX_NODES} are shown.`) : null,
    rows.length ? table("Current validators", headers, rows) : h("p", { class: "muted" }, "None indexed."),
  ];
}

function l1Status(v) {
  if (v.feeRatePerSecond > 0) return "active";
  return v.weight === 0 ? "removed" : "inactive";
}

async function l1Section(net, t) {
  const query = { pageSize: 100, includeInactiveL1Validators: true };
  const { items } = await collect(`/v1/networks/${net}/l1Validators`, query, "validators");
  const rows = items.map((v) => {
    const end = v.predictedDeactivationTimestamp;
    return [
      h("span", { class: "mono", title: v.validationId }, short(v.validationId, 8)),
      nodeLink(v.nodeId), h("span", { class: "mono", title: v.subnetId }, short(v.subnetId, 8)),
      num(v.weight), avax(v.remainingBalance), l1Status(v),
      end ? `${when(end)} (${age(end - t)} left)` : "—", when(v.creationTimestamp),
    ];
  });
  const headers = ["Validation", "Node", "Subnet", { label: "Weight", num: true }, { label: "Remaining balance", num: true },
    "Status", "Runs out", "Created"];
  return [
    h("h2", { id: "l1" }, `L1 validators (${num(rows.length)})`),
    h("p", { class: "muted" }, "Remaining balance at the newest indexed P-chain block; it runs out at the continuous fee's current rate."),
    rows.length ? table("L1 validators", headers, rows) : h("p", { class: "muted" }, "None indexed."),
  ];
}

export function txTable(key, label, txs) {
  const rows = txs.map((tx) => [
    txLink(key, tx), tx.txType, num(tx.blockNumber), when(tx.blockTimestamp),
    avax(((tx.value || []).find((v) => v.symbol === "AVAX") || {}).amount ?? null),
  ]);
  return table(label, ["Tx", "Type", { label: "Block", num: true }, "Time", { label: "Value", num: true }], rows);
}

export async function primary() {
  const net = await primaryNetwork();
  const [pTxs, ...others] = await Promise.all([
    collect(ptxPath(net, "P"), { pageSize: 50 }, "transactions", { limit: 1000 }),
    get(ptxPath(net, "X"), { pageSize: 10 }),
    get(ptxPath(net, "C"), { pageSize: 10 }),
  ]);
  const txs = pTxs.items;
  const out = [h("h1", {}, `Primary network (${net})`)];
  // The P-chain's current time as the lists judge status: its newest block's.
  const t = txs.length ? txs[0].blockTimestamp : now();
  out.push(...(await validatorsSection(net, t).catch((e) => [errorText(e)])));
  out.push(...(await l1Section(net, t).catch((e) => [errorText(e)])));
  out.push(h("h2", {}, "Newest transactions"));
  const lists = [txs.slice(0, 10), others[0].transactions, others[1].transactions];
  PRIMARY.forEach((c, i) => {
    out.push(h("h3", {}, c.name));
    out.push(lists[i].length ? txTable(c.key, `${c.name} transactions`, lists[i]) : h("p", { class: "muted" }, "Not indexed."));
  });
  return out;
}
