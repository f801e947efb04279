// The official SDK (@avalanche-sdk/chainkit 0.3.13) against our transaction exports:
// data.operations.exportTransactions (postTransactionExportJob) and data.operations.getResult
// (getOperationResult), each answer parsed by the SDK's own schemas; a second key gets a 404.
// Usage: node exports.mjs <serverURL> <json args>. Prints one JSON line; exits 1 on failure.
import { args, Avalanche, opts, serverURL } from "./sdk.mjs";

const mine = new Avalanche({ enableTelemetry: false, apiKey: args.key }).data.operations;
const theirs = new Avalanche({ enableTelemetry: false, apiKey: args.otherKey }).data.operations;
const out = {};
let step = "";

async function failure(call) {
  try {
    await call();
    return "no error";
  } catch (e) {
    return e.constructor.name;
  }
}

async function completed(request) {
  const made = await mine.exportTransactions(request, opts);
  const deadline = Date.now() + 60_000;
  let done = await mine.getResult({ operationId: made.operationId }, opts);
  while (done.operationStatus === "RUNNING" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    done = await mine.getResult({ operationId: made.operationId }, opts);
  }
  return { made, done };
}

try {
  if (args.primary) {
    // A store holding a primary network: the three primary-network export types.
    step = "primary exports";
    out.primaryExports = {};
    for (const type of ["TRANSACTION_EXPORT_PRIMARY_NETWORK", "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE"]) {
      out.primaryExports[type] = await completed({
        type,
        firstDate: "2023-11-14",
        options: { includeChains: ["p-chain"], addresses: args.primaryAddresses },
      });
    }
    out.theirGet = await failure(() =>
      theirs.getResult({ operationId: out.primaryExports.TRANSACTION_EXPORT_PRIMARY_NETWORK.made.operationId }, opts),
    );
    out.ok = true;
    console.log(JSON.stringify(out));
    process.exit(0);
  }
  step = "exportTransactions";
  const made = await mine.exportTransactions(
    {
      type: "TRANSACTION_EXPORT_EVM",
      firstDate: args.firstDate,
      lastDate: args.lastDate,
      options: { addresses: args.addresses, includeChains: [args.chainId] },
    },
    opts,
  );
  out.created = made;
  step = "getResult (until complete)";
  const deadline = Date.now() + 60_000;
  let done = await mine.getResult({ operationId: made.operationId }, opts);
  while (done.operationStatus === "RUNNING" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    done = await mine.getResult({ operationId: made.operationId }, opts);
  }
  out.done = done;
  step = "errors";
  out.theirGet = await failure(() => theirs.getResult({ operationId: made.operationId }, opts));
  out.unknown = await failure(() => mine.getResult({ operationId: args.unknown }, opts));
  out.badDate = await failure(() =>
    mine.exportTransactions(
      { type: "TRANSACTION_EXPORT_EVM", firstDate: "May 1st", options: { addresses: [], includeChains: [args.chainId] } },
      opts,
    ),
  );
  out.unknownChain = await failure(() =>
    mine.exportTransactions(
      { type: "TRANSACTION_EXPORT_EVM", options: { addresses: [], includeChains: ["999999"] } },
      opts,
    ),
  );
  // The primary-network body: this store holds no primary network, which is a 400.
  out.primary = await failure(() =>
    mine.exportTransactions(
      { type: "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE", options: { includeChains: ["p-chain"] } },
      opts,
    ),
  );
  out.ok = true;
} catch (e) {
  out.ok = false;
  out.step = step;
  out.error = `${e.constructor.name}: ${e.message}`;
}
console.log(JSON.stringify(out));
process.exit(out.ok ? 0 : 1);
