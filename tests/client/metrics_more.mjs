// Calls the Metrics API's newer routes through the official SDK (@avalanche-sdk/chainkit
// 0.3.13), so its zod schemas parse every answer: rolling windows, staking series (paged to
// the end), the L1 validator fee series, validators:getAddresses (paged) and the ICM routes.
// Usage: node metrics_more.mjs <serverURL> <json args>; writes {ok, results, errors} to
// args.outFile and prints one JSON status line; exits 1 on the first unexpected failure.
import { writeFileSync } from "node:fs";
import { args, Avalanche, opts, recordStray, serverURL, stray } from "./sdk.mjs";

recordStray();

const sdk = new Avalanche({ enableTelemetry: false });
const m = sdk.metrics;

function fail(name, err) {
  console.log(JSON.stringify({ ok: false, name, error: String(err), stray }));
  process.exit(1);
}

async function paged(iterable, key) {
  const items = [];
  let pages = 0;
  for await (const page of await iterable) {
    pages += 1;
    for (const x of page.result[key]) items.push(x);
    if (pages > 1000) throw new Error("more than 1000 pages");
  }
  return { pages, items };
}

const results = {};
const calls = [];
for (const metric of args.rollingMetrics) {
  calls.push([`rolling/${metric}`, () => m.chains.getRollingWindowMetrics({ chainId: args.chainId, metric }, opts)]);
}
for (const metric of ["validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight"]) {
  calls.push([`staking/${metric}`, () => paged(m.networks.getStakingMetrics({ network: "fuji", metric, pageSize: 5 }, opts), "results")]);
}
for (const metric of ["totalCumulativeFeesDaily", "totalValidatorFeesDaily", "totalPayingValidatorsDaily"]) {
  calls.push([`total/${metric}`, () => m.l1Validators.listMetrics({ metric }, opts)]);
}
for (const metric of ["validationCumulativeFeesDaily", "validationFeesDaily"]) {
  calls.push([`validation/${metric}`, () => m.l1Validators.getMetricsByValidationId({ l1ValidationId: args.validationId, metric }, opts)]);
}
for (const metric of ["perNodeCumulativeFeesPaid", "perNodeDailyFeesPaid"]) {
  calls.push([`node/${metric}`, () => m.l1Validators.getMetricsByNodeId({ nodeId: args.nodeId, metric }, opts)]);
}
for (const metric of ["perSubnetDailyFeesPaid", "perSubnetCumulativeFeesPaid", "perSubnetPayingValidators"]) {
  calls.push([`subnet/${metric}`, () => m.l1Validators.getMetricsBySubnetId({ subnetId: args.subnetId, metric }, opts)]);
}
calls.push(["addresses", () => paged(m.subnets.getValidators({ subnetId: args.primarySubnet, pageSize: 4 }, opts), "addresses")]);
calls.push(["icm/timeseries", () => m.chains.getICMTimeseries({ network: "fuji" }, opts)]);
calls.push(["icm/summary", () => m.chains.getICMSummary({ srcBlockchainId: args.chainBlockchainId }, opts)]);

for (const [name, call] of calls) {
  try {
    results[name] = await call();
  } catch (err) {
    fail(name, err);
  }
}

const errors = {};
const cases = [
  ["unknown validation", () => m.l1Validators.getMetricsByValidationId({ l1ValidationId: args.unknownId, metric: "validationFeesDaily" }, opts), "NotFoundError"],
  ["unknown subnet", () => m.l1Validators.getMetricsBySubnetId({ subnetId: args.unknownId, metric: "perSubnetDailyFeesPaid" }, opts), "NotFoundError"],
  ["bad node", () => m.l1Validators.getMetricsByNodeId({ nodeId: "NodeID-x", metric: "perNodeDailyFeesPaid" }, opts), "BadRequestError"],
  ["unknown chain rolling", () => m.chains.getRollingWindowMetrics({ chainId: "999999", metric: "txCount" }, opts), "NotFoundError"],
];
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

writeFileSync(args.outFile, JSON.stringify({ ok: stray.length === 0, results, errors, stray }));
console.log(JSON.stringify({ ok: stray.length === 0, written: args.outFile, stray }));
process.exit(stray.length === 0 ? 0 : 1);
