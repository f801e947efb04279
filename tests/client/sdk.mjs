// What every SDK script starts with: its arguments (`node X.mjs <serverURL> <json args>`, the
// JSON naming toolsDir), the official SDK (@avalanche-sdk/chainkit) loaded from tools/, and the
// call options: serverURL per call (the constructor's is ignored), no retries, so a 5XX fails
// at once.
import { createRequire } from "node:module";
import path from "node:path";

const [, , serverURL, rawArgs] = process.argv;
export const args = JSON.parse(rawArgs);
const require = createRequire(path.join(args.toolsDir, "package.json"));
export const { Avalanche } = await import(require.resolve("@avalanche-sdk/chainkit"));
export const opts = { serverURL, retries: { strategy: "none" } };
export { serverURL };

// The SDK can leave an unobserved rejected promise behind a parse error: a script that asks
// records it here (and reports it) instead of letting Node end the process before it reports.
export const stray = [];
export function recordStray() {
  process.on("unhandledRejection", (reason) => {
    stray.push(String(reason));
  });
}
