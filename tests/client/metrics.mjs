// Calls our Metrics API through the official SDK (@avalanche-sdk/chainkit 0.3.13): every
// requested (chain, metric, interval) series, following nextPageToken to the end; the chains
// listing; and the error cases, which must come back as the SDK's typed errors (the body has the
// seed's {message, error, statusCode} shape). Usage: node metrics.mjs <serverURL> <json args>.
// Writes {ok, series, listing, errors, raw} to args.outFile and prints one JSON status line;
// exits 1 on the first unexpected failure.
import { writeFileSync } from "node:fs";
import { args, Avalanche, opts, recordStray, serverURL, stray } from "./sdk.mjs";

recordStray();

const sdk = new Avalanche({ enableTelemetry: false });
const chains = sdk.metrics.chains;

function fail(name, err) {
  console.log(JSON.stringify({ ok: false, name, error: String(err), stray }));
  process.exit(1);
}

const series = {};
for (const [chainId, metric, timeInterval, pageSize] of args.calls) {
  const name = `${chainId}/${metric}/${timeInterval}/${pageSize}`;
  try {
    const res = await chains.getMetrics({ chainId, metric, timeInterval, pageSize }, opts);
    const points = [];
    let pages = 0;
    for await (const page of res) {
      pages += 1;
      for (const p of page.result.results) points.push([p.timestamp, p.value]);
      if (pages > 1000) throw new Error("more than 1000 pages");
    }
    series[name] = { pages, points };
  } catch (err) {
    fail(name, err);
  }
}

const listing = {};
try {
  const res = await chains.list({}, opts);
  const ids = [];
  for await (const page of res) for (const c of page.result.chains) ids.push(c.evmChainId);
  listing.list = ids;
  const one = await chains.get({ chainId: String(ids[0]) }, opts);
  listing.get = one;
} catch (err) {
  fail("chains", err);
}

// Each case must throw the typed error named; the SDK parsed the body with its error schema.
const chainId = args.chainId;
const cases = [
  ["interval not allowed", () => chains.getMetrics({ chainId, metric: "maxTps", timeInterval: "hour" }, opts), "BadRequestError"],
  ["negative startTimestamp", () => chains.getMetrics({ chainId, metric: "txCount", startTimestamp: -5 }, opts), "BadRequestError"],
  ["start after end", () => chains.getMetrics({ chainId, metric: "txCount", startTimestamp: 20, endTimestamp: 10 }, opts), "BadRequestError"],
  ["pageSize too large", () => chains.getMetrics({ chainId, metric: "txCount", pageSize: 5000 }, opts), "BadRequestError"],
  ["pageSize zero", () => chains.getMetrics({ chainId, metric: "txCount", pageSize: 0 }, opts), "BadRequestError"],
  ["malformed token", () => chains.getMetrics({ chainId, metric: "txCount", pageToken: "not-a-token" }, opts), "BadRequestError"],
  ["unknown token", () => chains.getMetrics({ chainId, metric: "txCount", pageToken: "0b6f3c3e-1111-4222-8333-444455556666" }, opts), "BadRequestError"],
  ["unknown chain", () => chains.getMetrics({ chainId: "999999", metric: "txCount" }, opts), "NotFoundError"],
  ["unknown chain (get)", () => chains.get({ chainId: "999999" }, opts), "NotFoundError"],
];
const errors = {};
for (const [name, call, want] of cases) {
  try {
    await call();
    fail(name, "no error thrown");
  } catch (err) {
    const got = err?.constructor?.name;
    if (got !== want) fail(name, `${got}: ${err}`);
    errors[name] = { type: got, statusCode: err?.data$?.statusCode, message: err?.data$?.message };
  }
}

// What the SDK refuses to send (closed enums) is checked over plain HTTP: same error shape.
const raw = {};
for (const [name, url] of [
  ["bad metric", `/v2/chains/${chainId}/metrics/notAMetric`],
  ["bad interval", `/v2/chains/${chainId}/metrics/txCount?timeInterval=year`],
  ["bad timestamp", `/v2/chains/${chainId}/metrics/txCount?startTimestamp=yesterday`],
  ["v1 avg_tps", `/v1/avg_tps/${chainId}`],
]) {
  const res = await fetch(serverURL + url);
  raw[name] = { status: res.status, contentType: res.headers.get("content-type"), body: await res.json() };
}

// The full result goes to a file: a pipe would be cut at 64 KiB by process.exit.
writeFileSync(args.outFile, JSON.stringify({ ok: stray.length === 0, series, listing, errors, raw, stray }));
console.log(JSON.stringify({ ok: stray.length === 0, written: args.outFile, stray }));
process.exit(stray.length === 0 ? 0 : 1);
