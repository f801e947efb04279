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

// A primary-network transaction page is costly to serve (UTXOs, assets, L1 details), so the
// row reads pages of PRIMARY_PAGE and goes on only while a whole page is within 24 hours.
const PRIMARY_PAGE = 50;

async function fillPrimary(net, chain, c) {
  const t = now();
  const path = ptxPath(net, chain.key);
  const page = await get(path, { pageSize: PRIMARY_PAGE });
  const newest = page.transactions;
  let day = newest.filter((tx) => tx.blockTimestamp >= t - DAY).length;
  let complete = day < newest.length || !page.nextPageToken;
  if (!complete) {
    const more = await collect(path, { pageSize: PRIMARY_PAGE, pageToken: page.nextPageToken }, "transactions", {
      limit: 9 * PRIMARY_PAGE, stop: (tx) => tx.blockTimestamp < t - DAY,
    });
    day += more.items.length;
    complete = more.complete;
  }
  const top = newest[0];
  c.head.replaceChildren(top ? num(top.blockNumber) : "not indexed");
  c.head.title = "height of the newest block holding a transaction";
  c.lag.replaceChildren(top ? age(t - top.blockTimestamp) : "—");
  c.day.replaceChildren(complete ? num(day) : `≥ ${num(day)}`);
  const first = Math.floor(t / DAY) * DAY - 6 * DAY;
  const counts = new Map();
  for (const tx of newest) {
    const bucket = Math.floor(tx.blockTimestamp / DAY) * DAY;
    counts.set(bucket, (counts.get(bucket) || 0) + 1);
  }
  const points = [];
  for (let b = first; b <= t; b += DAY) points.push({ t: b, v: counts.get(b) || 0 });
  c.chart.replaceChildren(
    newest.length
      ? barChart(points, { small: true, label: `${chain.name}: transactions per day of the newest ${newest.length}, last 7 days` })
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
  const evm = [];
  for (const chain of chains) {
    const c = cells();
    evm.push(fillEvm(chain, c).catch((e) => failed(c, e)));
    rows.push([
      link(`#/metrics?chain=${chain.chainId}`, chain.name), `EVM ${chain.chainId}`, chain.network,
      c.head, c.lag, c.day, c.chart,
    ]);
  }
  // The primary rows ask after the EVM rows are drawn: their pages are the costly ones, and
  // the server answers SQLite reads one at a time.
  const after = Promise.allSettled(evm);
  for (const chain of PRIMARY) {
    const c = cells();
    after.then(() => fillPrimary(net, chain, c)).catch((e) => failed(c, e));
    rows.push([link(`#/primary`, chain.name), "primary", net === "fuji" ? "testnet" : net, c.head, c.lag, c.day, c.chart]);
  }
  const headers = [
    "Chain", "Kind", "Network", { label: "Head", num: true }, { label: "Lag", num: true },
    { label: "Txs, 24 h", num: true }, { label: "Txs, 7 days", cls: "spark" },
  ];
  return [
    h("h1", {}, "Chains"),
    h("p", { class: "muted" },
      "Lag is the time since the newest indexed block (the API serves no node head). ",
      "EVM transactions come from the Metrics API's hourly txCount (chart: per hour); primary chains from their newest transactions (chart: per day of the newest 50)."),
    table("Chains", headers, rows, { stack: true }),
  ];
}
