// The official SDK (@avalanche-sdk/chainkit 0.3.13) against our /v1/webhooks: all ten
// operations, each answer parsed by the SDK's own schemas; a second key sees none of them.
// Usage: node webhooks.mjs <serverURL> <json args>. Prints one JSON line; exits 1 on failure.
import { args, Avalanche, opts, serverURL } from "./sdk.mjs";

const mine = new Avalanche({ enableTelemetry: false, apiKey: args.key });
const theirs = new Avalanche({ enableTelemetry: false, apiKey: args.otherKey });
const wh = mine.webhooks;
const out = {};
let step = "";
try {
  step = "create";
  const made = await wh.create(
    {
      eventType: "address_activity",
      url: args.url,
      chainId: args.chainId,
      name: "sdk",
      includeLogs: true,
      metadata: { addresses: [args.addresses[0]] },
    },
    opts,
  );
  out.created = made;
  const id = made.id;
  step = "get";
  out.got = await wh.get({ id }, opts);
  step = "update";
  out.updated = await wh.update({ id, updateWebhookRequest: { description: "from the sdk", includeInternalTxs: true } }, opts);
  step = "addresses.add";
  out.added = await wh.addresses.add({ id, addressesChangeRequest: { addresses: args.addresses.slice(1) } }, opts);
  step = "addresses.list";
  out.listedAddresses = [];
  let total = null;
  for await (const page of await wh.addresses.list({ id, pageSize: 1 }, opts)) {
    out.listedAddresses.push(...page.result.addresses);
    total = page.result.totalAddresses;
  }
  out.totalAddresses = total;
  step = "addresses.remove";
  out.removed = await wh.addresses.remove({ id, addressesChangeRequest: { addresses: [args.addresses[0]] } }, opts);
  step = "generateOrRotateSharedSecret";
  out.secret1 = (await wh.generateOrRotateSharedSecret(opts)).secret;
  step = "getSharedSecret";
  out.secret2 = (await wh.getSharedSecret(opts)).secret;
  step = "list";
  out.listed = [];
  for await (const page of await wh.list({ pageSize: 1 }, opts)) {
    out.listed.push(...page.result.webhooks.map((w) => w.id));
  }
  step = "deactivate";
  out.deactivated = await wh.deactivate({ id }, opts);
  step = "list(inactive)";
  out.inactive = [];
  for await (const page of await wh.list({ status: "inactive" }, opts)) {
    out.inactive.push(...page.result.webhooks.map((w) => w.id));
  }
  step = "other key: list";
  out.theirList = [];
  for await (const page of await theirs.webhooks.list({}, opts)) {
    out.theirList.push(...page.result.webhooks.map((w) => w.id));
  }
  step = "other key: get";
  try {
    await theirs.webhooks.get({ id }, opts);
    out.theirGet = "found";
  } catch (err) {
    out.theirGet = err?.constructor?.name ?? String(err);
  }
  step = "bad input";
  try {
    await wh.create({ eventType: "address_activity", url: "ftp://x", chainId: args.chainId, metadata: { addresses: [] } }, opts);
    out.badUrl = "accepted";
  } catch (err) {
    out.badUrl = { name: err?.constructor?.name, message: String(err?.message ?? err).slice(0, 300) };
  }
  console.log(JSON.stringify({ ok: true, ...out }));
  process.exit(0);
} catch (err) {
  console.log(JSON.stringify({ ok: false, step, error: String(err).slice(0, 500), issues: JSON.stringify(err?.cause?.issues ?? err?.cause ?? null).slice(0, 2000) }));
  process.exit(1);
}
