// The official SDK (@avalanche-sdk/chainkit 0.3.13) against /v1/networks/{network}/validators/{nodeId}:
// every page for every node must parse with the SDK's own union of status shapes.
// Usage: node validators.mjs <serverURL> <json args {toolsDir, nodeIds}>. Prints one JSON line.
import { args, Avalanche, opts, serverURL } from "./sdk.mjs";

const sdk = new Avalanche({ enableTelemetry: false });
const statuses = {};
let pages = 0;
for (const nodeId of args.nodeIds) {
  try {
    for await (const page of await sdk.data.primaryNetwork.getValidatorDetails({ network: "fuji", nodeId, pageSize: 2 }, opts)) {
      pages += 1;
      for (const v of page.result.validators) statuses[v.validationStatus] = (statuses[v.validationStatus] ?? 0) + 1;
    }
  } catch (err) {
    console.log(JSON.stringify({ ok: false, nodeId, error: String(err).slice(0, 300), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 3000) }));
    process.exit(1);
  }
}
console.log(JSON.stringify({ ok: true, pages, statuses }));
