// The official SDK (@avalanche-sdk/chainkit 0.3.13) against the primary network's staking lists:
// listValidators, listDelegators, listL1Validators and the two rewards lists, every page
// parsed with the SDK's own zod schemas. Usage: node staking.mjs <serverURL> <json args
// {toolsDir, calls: [{name, request}]}>, name one of the operations below. Prints one JSON line:
// per call, the pages and the items the SDK parsed (their IDs, in order).
import { args, Avalanche, opts, serverURL } from "./sdk.mjs";

const sdk = new Avalanche({ enableTelemetry: false, network: "fuji" });
const pn = sdk.data.primaryNetwork;
const ops = {
  listValidators: [(r) => pn.listValidators(r, opts), "validators", (v) => v.txHash],
  listDelegators: [(r) => pn.listDelegators(r, opts), "delegators", (v) => v.txHash],
  listL1Validators: [(r) => pn.listL1Validators(r, opts), "validators", (v) => v.validationId],
  listPendingRewards: [(r) => pn.rewards.listPendingRewards(r, opts), "pendingRewards", (v) => v.txHash],
  listHistoricalRewards: [(r) => pn.rewards.listHistoricalRewards(r, opts), "historicalRewards", (v) => v.utxoId],
};
const out = [];
for (const call of args.calls) {
  const [run, key, id] = ops[call.name];
  const seen = { name: call.name, pages: 0, ids: [] };
  try {
    for await (const page of await run(call.request)) {
      seen.pages += 1;
      for (const item of page.result[key]) seen.ids.push(id(item));
    }
  } catch (err) {
    console.log(JSON.stringify({ ok: false, call, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000) }));
    process.exit(1);
  }
  out.push(seen);
}
console.log(JSON.stringify({ ok: true, calls: out }));
