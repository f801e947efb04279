// Metrics: any of the 17 chain metrics for a chain or an aggregate, by hour, day, week or
// month over a date range, drawn from the Metrics API's own answer (every page of it).
import { collect } from "../api.js";
import { barChart, stamp } from "../chart.js";
import { evmChains } from "../chains.js";
import { compact, errorText, h, num, table } from "../dom.js";

// The catalog of metrics/catalog.py (tests/api/test_dashboard.py keeps the two equal):
// name -> [label, intervals allowed].
const ALL = ["hour", "day", "week", "month"];
const DAY_ONLY = ["day"];
export const METRICS = {
  activeAddresses: ["Active addresses", ALL],
  activeSenders: ["Active senders", ALL],
  txCount: ["Transactions", ALL],
  gasUsed: ["Gas used", ALL],
  cumulativeTxCount: ["Cumulative transactions", DAY_ONLY],
  cumulativeAddresses: ["Cumulative addresses", DAY_ONLY],
  cumulativeContracts: ["Cumulative contracts", DAY_ONLY],
  cumulativeDeployers: ["Cumulative deployers", DAY_ONLY],
  contracts: ["Contracts created", DAY_ONLY],
  deployers: ["Deployers", DAY_ONLY],
  avgTps: ["Average TPS", DAY_ONLY],
  maxTps: ["Max TPS", DAY_ONLY],
  avgGps: ["Average gas per second", DAY_ONLY],
  maxGps: ["Max gas per second", DAY_ONLY],
  avgGasPrice: ["Average gas price (wei)", DAY_ONLY],
  maxGasPrice: ["Max gas price (wei)", DAY_ONLY],
  feesPaid: ["Fees paid (wei)", DAY_ONLY],
};
const DEFAULT_DAYS = { hour: 2, day: 45, week: 182, month: 730 };
const MAX_POINTS = 8640;

const isoDay = (t) => new Date(t * 1000).toISOString().slice(0, 10);
const dayStart = (s) => Math.floor(Date.parse(`${s}T00:00:00Z`) / 1000);

function choices(params, chains) {
  const metric = METRICS[params.get("metric")] ? params.get("metric") : "txCount";
  const allowed = METRICS[metric][1];
  const interval = allowed.includes(params.get("interval")) ? params.get("interval") : "day";
  const scopes = [...chains.map((c) => c.chainId), "total", ...new Set(chains.map((c) => c.network))];
  const chain = scopes.includes(params.get("chain")) ? params.get("chain") : scopes[0] || "total";
  const today = isoDay(Date.now() / 1000);
  const to = /^\d{4}-\d{2}-\d{2}$/.test(params.get("to") || "") ? params.get("to") : today;
  const from = /^\d{4}-\d{2}-\d{2}$/.test(params.get("from") || "")
    ? params.get("from")
    : isoDay(dayStart(to) - DEFAULT_DAYS[interval] * 86400);
  return { metric, interval, chain, from, to };
}

function select(name, label, options, value) {
  return h("label", {}, label,
    h("select", { name }, options.map(([v, text, disabled]) =>
      h("option", { value: v, selected: v === value, disabled }, text))));
}

function controls(c, chains) {
  const scopeName = (id) => {
    const chain = chains.find((x) => x.chainId === id);
    return chain ? `${chain.name} (${id})` : `All ${id === "total" ? "chains" : id + " chains"}`;
  };
  const scopes = [...chains.map((x) => x.chainId), "total", ...new Set(chains.map((x) => x.network))];
  const form = h("form", { class: "controls", "aria-label": "Metric, chain, interval and range" },
    select("metric", "Metric", Object.entries(METRICS).map(([k, [label]]) => [k, label]), c.metric),
    select("chain", "Chain", scopes.map((id) => [id, scopeName(id)]), c.chain),
    select("interval", "Interval", ALL.map((i) => [i, i, !METRICS[c.metric][1].includes(i)]), c.interval),
    h("label", {}, "From", h("input", { type: "date", name: "from", value: c.from })),
    h("label", {}, "To", h("input", { type: "date", name: "to", value: c.to })),
    h("button", { type: "submit" }, "Show"),
  );
  const go = (e) => {
    e.preventDefault();
    const q = new URLSearchParams(new FormData(form));
    if (e.type === "change" && e.target.name === "interval") { q.delete("from"); }
    location.hash = `#/metrics?${q}`;
  };
  form.addEventListener("submit", go);
  form.addEventListener("change", (e) => { if (e.target.tagName === "SELECT") go(e); });
  return form;
}

export async function metrics(params) {
  const chains = await evmChains();
  const c = choices(params, chains);
  const [label] = METRICS[c.metric];
  const start = dayStart(c.from);
  const end = dayStart(c.to) + 86399;
  const out = [h("h1", {}, "Metrics"), controls(c, chains)];
  let results;
  try {
    ({ items: results } = await collect(`/v2/chains/${c.chain}/metrics/${c.metric}`, {
      timeInterval: c.interval, startTimestamp: start, endTimestamp: end, pageSize: 2160,
    }, "results", { limit: MAX_POINTS }));
  } catch (err) {
    return [...out, errorText(err)];
  }
  const points = results.map((r) => ({ t: r.timestamp, v: r.value })).reverse();
  const hourly = c.interval === "hour";
  const title = `${label} per ${c.interval}, ${c.chain}, ${c.from} to ${c.to}`;
  out.push(h("h2", {}, title));
  if (!points.length) return [...out, h("p", { class: "muted" }, "No data in this range.")];
  const values = points.map((p) => Number(p.v));
  const newest = points[points.length - 1];
  out.push(
    h("div", { class: "cards" },
      card("Points", num(points.length)),
      card("Newest", `${compact(newest.v)} (${stamp(newest.t, hourly)})`),
      card("Max", compact(Math.max(...values))),
      card("Sum", compact(values.reduce((a, v) => a + v, 0))),
    ),
    barChart(points, { label: `${title}: ${points.length} points`, hourly }),
    h("details", {}, h("summary", {}, "Values"),
      table(`${label} values`, ["Bucket start (UTC)", { label: "Value", num: true }],
        [...points].reverse().map((p) => [stamp(p.t, hourly), num(p.v)]))),
  );
  return out;
}

function card(name, value) {
  return h("div", { class: "card" }, h("div", { class: "muted" }, name), h("div", { class: "value" }, value));
}
