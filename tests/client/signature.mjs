// The official SDK's exported signature check (@avalanche-sdk/chainkit 0.3.13,
// utils/validateSignature: JCS canonical JSON, HMAC-SHA256 keyed with the hex-decoded secret,
// base64) over deliveries our server signed.
// Usage: node signature.mjs <toolsDir> <file of JSON lines {secret, body, signature}>.
// Prints one JSON line: {ok, valid: [bool per line]}.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [, , toolsDir, file] = process.argv;
const module = path.join(toolsDir, "node_modules/@avalanche-sdk/chainkit/dist/esm/utils/validateSignature.js");
const { validateSignature } = await import(pathToFileURL(module).href);
const log = console.log;
console.log = () => {}; // validateSignature prints the digests
const valid = fs
  .readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => {
    const { secret, body, signature } = JSON.parse(l);
    return validateSignature(secret, signature, JSON.parse(body));
  });
log(JSON.stringify({ ok: true, valid }));
