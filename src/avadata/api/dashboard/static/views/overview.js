// Overview: every chain with its network, head, lag, transactions of the last 24 hours and a
// small chart. EVM chains: the newest block (Data API) and hourly txCount (Metrics API).
// Primary chains (P, X, C atomic): the newest transactions, since no metric covers them.
import { collect, get } from "../api.js";
import { barChart } from "../chart.js";
import { evmChains, PRIMARY, primaryNetwork, ptxPath } from "../chains.js";
import { age, errorText, h, link, now, num, table } from "../dom.js";

const HOUR = 3600;
const DAY = 86400;

function cells() {
  return { head: h("span", {}, "…"), lag: h("span", {}, "…"), day: h("span", {}, "…"), chart: h("div", {}, "…") };
}

async function fillEvm(chain, c) {
  const t = now();
  const firstHour = Math.floor(t / HOUR) * HOUR - 23 * HOUR;
  const [blocks, series] = await Promise.all([
    get(`/v1/chains/${chain.chainId}/blocks`, { pageSize: 1 }),
    get(`/v2/chains/${chain.chainId}/metrics/txCount`, {
      timeInterval: "hour", startTimestamp: firstHour - 6 * DAY, endTimestamp: t, pageSize: 168,
    }),
  ]);
  const top = blocks.blocks[0];
  c.head.replaceChildren(top ? link(`#/block/${top.blockNumber}?chain=${chain.chainId}`, num(top.blockNumber)) : "no blocks");
  c.lag.replaceChildren(top ? age(t - top.blockTimestamp) : "—");
  c.lag.title = top ? "time since the newest indexed block" : "";
  const points = series.results.map((r) => ({ t: r.timestamp, v: r.value })).reverse();
  const day = points.filter((p) => p.t >= firstHour).reduce((a, p) => a + Number(p.v), 0);
  c.day.replaceChildren(num(day));
  c.chart.replaceChildren(
    points.length
      ? barChart(points, { small: true, hourly: true, label: `${chain.name}: transactions per hour, last 7 days` })
      : h("span", { class: "muted" }, "no metrics yet"),
  );
}

async function fillPrimary(net, chain, c) {
  const t = now();
  const { items, complete } = await collect(ptxPath(net, chain.key), { pageSize: 100 }, "transactions", {
    limit: 1000, stop: (tx) => tx.blockTimestamp < t - 7 * DAY,
  });
  const top = items[0];
  c.head.replaceChildren(top ? num(top.blockNumber) : "not indexed");
  c.head.title = "height of the newest block holding a transaction";
  c.lag.replaceChildren(top ? age(t - top.blockTimestamp) : "—");
  const day = items.filter((tx) => tx.blockTimestamp >= t - DAY).length;
  c.day.replaceChildren(complete ? num(day) : `≥ ${num(day)}`);
  const first = Math.floor(t / HOUR) * HOUR - (7 * 24 - 1) * HOUR;
  const counts = new Map();
  for (const tx of items) {
    const hour = Math.floor(tx.blockTimestamp / HOUR) * HOUR;
    if (hour >= first) counts.set(hour, (counts.get(hour) || 0) + 1);
  }
  const points = [];
  for (let hour = first; hour <= t; hour += HOUR) points.push({ t: hour, v: counts.get(hour) || 0 });
  c.chart.replaceChildren(
    items.length
      ? barChart(points, { small: true, hourly: true, label: `${chain.name}: transactions per hour, last 7 days` })
      : h("span", { class: "muted" }, "—"),
  );
}

function failed(c, err) {
  c.head.replaceChildren(errorText(err));
  for (const cell of [c.lag, c.day, c.chart]) cell.replaceChildren("—");
}

export async function overview() {
  const [chains, net] = await Promise.all([evmChains(), primaryNetwork()]);
  const rows = [];
  for (const chain of chains) {
    const c = cells();
    fillEvm(chain, c).catch((e) => failed(c, e));
    rows.push([
      link(`#/metrics?chain=${chain.chainId}`, chain.name), `EVM ${chain.chainId}`, chain.network,
      c.head, c.lag, c.day, c.chart,
    ]);
  }
  for (const chain of PRIMARY) {
    const c = cells();
    fillPrimary(net, chain, c).catch((e) => failed(c, e));
    rows.push([link(`#/primary`, chain.name), "primary", net === "fuji" ? "testnet" : net, c.head, c.lag, c.day, c.chart]);
  }
  const headers = [
    "Chain", "Kind", "Network", { label: "Head", num: true }, { label: "Lag", num: true },
    { label: "Txs, 24 h", num: true }, { label: "Txs per hour, 7 days", cls: "spark" },
  ];
  return [
    h("h1", {}, "Chains"),
    h("p", { class: "muted" },
      "Lag is the time since the newest indexed block (the API serves no node head). ",
      "EVM transactions come from the Metrics API's hourly txCount; primary chains from their newest transactions."),
    table("Chains", headers, rows, { stack: true }),
  ];
}
