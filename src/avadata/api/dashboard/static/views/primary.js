// Primary network: current validators and L1 validators as the API has them, and the newest
// P-, X- and C-chain (atomic) transactions.
//
// The API serves no validator listing yet: current validators are the staking txs among the
// newest P-chain transactions whose period holds the present, completed by each node's
// validator details (uptime, potential reward, delegators). L1 validators are the
// l1ValidatorDetails of the newest P-chain txs (the newest entry per validation is its
// state). Runway needs the L1 fee rate, which the API does not serve.
import { collect, get } from "../api.js";
import { PRIMARY, primaryNetwork, ptxPath } from "../chains.js";
import { age, avax, errorText, h, link, now, num, short, table, when } from "../dom.js";

const PRIMARY_SUBNET = "11111111111111111111111111111111LpoYY";
const VALIDATOR_TXS = new Set(["AddValidatorTx", "AddPermissionlessValidatorTx"]);
const DELEGATOR_TXS = new Set(["AddDelegatorTx", "AddPermissionlessDelegatorTx"]);
const MAX_NODES = 40;

export const txLink = (key, tx) => link(`#/ptx/${key}/${tx.txHash}`, short(tx.txHash, 8), tx.txHash);
export const nodeLink = (id) => link(`#/node/${id}`, short(id, 12), id);

export function staked(tx) {
  return (tx.amountStaked || []).reduce((a, x) => a + BigInt(x.amount), 0n);
}

function current(txs, t) {
  const validators = new Map();
  const delegators = new Map();
  for (const tx of txs) {
    const open = tx.startTimestamp <= t && t < tx.endTimestamp;
    if (!open || (tx.subnetId && tx.subnetId !== PRIMARY_SUBNET)) continue;
    if (VALIDATOR_TXS.has(tx.txType) && !validators.has(tx.nodeId)) validators.set(tx.nodeId, tx);
    if (DELEGATOR_TXS.has(tx.txType)) delegators.set(tx.nodeId, (delegators.get(tx.nodeId) || 0) + 1);
  }
  return { validators: [...validators.values()], delegators };
}

async function details(net, nodeId) {
  const answer = await get(`/v1/networks/${net}/validators/${nodeId}`, { pageSize: 10 });
  return (answer.validators || []).find((v) => v.validationStatus === "active") || null;
}

async function validatorsSection(net, txs) {
  // The P-chain's current time as the validators route judges status: its newest block's.
  const t = txs.length ? txs[0].blockTimestamp : now();
  const { validators, delegators } = current(txs, t);
  const shown = validators.slice(0, MAX_NODES);
  const live = await Promise.all(shown.map((v) => details(net, v.nodeId).catch(() => null)));
  const rows = shown.map((tx, i) => {
    const d = live[i];
    return [
      nodeLink(tx.nodeId), avax(staked(tx).toString()), num(delegators.get(tx.nodeId) || 0),
      d && d.uptimePerformance !== undefined ? `${num(d.uptimePerformance)} %` : "—",
      d && d.potentialRewards ? avax(d.potentialRewards.validationRewardAmount) : tx.estimatedReward ? avax(tx.estimatedReward) : "—",
      when(tx.startTimestamp), `${when(tx.endTimestamp)} (${age(tx.endTimestamp - t)} left)`, txLink("P", tx),
    ];
  });
  const headers = ["Node", { label: "Stake", num: true }, { label: "Delegations", num: true },
    { label: "Uptime", num: true }, { label: "Potential reward", num: true }, "Start", "End", "Added by"];
  return [
    h("h2", { id: "validators" }, `Current validators (${num(validators.length)})`),
    validators.length > shown.length ? h("p", { class: "muted" }, `The first ${MAX_NODES} are shown.`) : null,
    rows.length ? table("Current validators", headers, rows) : h("p", { class: "muted" }, "None among the indexed P-chain transactions."),
  ];
}

function l1Section(txs) {
  const seen = new Map();
  for (const tx of txs) {
    for (const d of tx.l1ValidatorDetails || []) {
      if (!seen.has(d.validationId)) seen.set(d.validationId, { d, tx });
    }
  }
  const rows = [...seen.values()].map(({ d, tx }) => {
    const removed = tx.txType === "DisableL1ValidatorTx" || Number(d.weight) === 0;
    return [
      h("span", { class: "mono", title: d.validationId }, short(d.validationId, 8)),
      d.nodeId ? nodeLink(d.nodeId) : "—", h("span", { class: "mono", title: d.subnetId }, short(d.subnetId || "—", 8)),
      num(d.weight), avax(d.remainingBalance), removed ? "removed" : "active", `${tx.txType}, ${when(tx.blockTimestamp)}`, txLink("P", tx),
    ];
  });
  const headers = ["Validation", "Node", "Subnet", { label: "Weight", num: true }, { label: "Remaining balance", num: true },
    "Status", "Last change", "Tx"];
  return [
    h("h2", { id: "l1" }, `L1 validators (${num(rows.length)})`),
    h("p", { class: "muted" }, "Remaining balance is the node's answer at the indexer's last snapshot; the runway needs the L1 fee rate, which the API does not serve."),
    rows.length ? table("L1 validators", headers, rows) : h("p", { class: "muted" }, "None among the indexed P-chain transactions."),
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
  out.push(...(await validatorsSection(net, txs).catch((e) => [errorText(e)])));
  out.push(...l1Section(txs));
  out.push(h("h2", {}, "Newest transactions"));
  const lists = [txs.slice(0, 10), others[0].transactions, others[1].transactions];
  PRIMARY.forEach((c, i) => {
    out.push(h("h3", {}, c.name));
    out.push(lists[i].length ? txTable(c.key, `${c.name} transactions`, lists[i]) : h("p", { class: "muted" }, "Not indexed."));
  });
  return out;
}
