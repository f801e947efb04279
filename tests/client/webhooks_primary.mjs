// The official SDK (@avalanche-sdk/chainkit 0.3.13) creates, gets and lists our primary-network
// webhooks (primary_network_address_activity, validator_activity): each request built and each
// answer parsed by the SDK's own schemas.
// Usage: node webhooks_primary.mjs <serverURL> <json args>. Prints one JSON line; exits 1 on failure.
import { args, Avalanche, opts, serverURL } from "./sdk.mjs";

const wh = new Avalanche({ enableTelemetry: false, apiKey: args.key }).webhooks;
const out = {};
let step = "";
try {
  step = "create address activity";
  out.address = await wh.create(
    {
      eventType: "primary_network_address_activity",
      url: args.url,
      network: "fuji",
      chainId: "p-chain",
      metadata: {
        keyType: "addresses",
        keys: args.keys,
        subEvents: { addressActivitySubEvents: ["balance_change", "reward_distribution"] },
      },
    },
    opts,
  );
  step = "create validator activity";
  out.validator = await wh.create(
    {
      eventType: "validator_activity",
      url: args.url,
      network: "fuji",
      metadata: {
        keyType: "nodeId",
        keys: [args.nodeId],
        subEvents: { validatorActivitySubEvents: ["validator_stake", "reward_distribution"] },
        // Kept and answered, not used.
        nodeIds: [args.nodeId],
        l1ValidatorFeeBalanceThreshold: "1000",
      },
    },
    opts,
  );
  step = "get";
  out.got = await wh.get({ id: out.validator.id }, opts);
  step = "list";
  out.listed = [];
  for await (const page of await wh.list({ pageSize: 1 }, opts)) {
    out.listed.push(...page.result.webhooks.map((w) => [w.id, w.eventType]));
  }
  console.log(JSON.stringify({ ok: true, ...out }));
  process.exit(0);
} catch (err) {
  console.log(JSON.stringify({ ok: false, step, error: String(err).slice(0, 500), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 2000) }));
  process.exit(1);
}
