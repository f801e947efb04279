// The page's router: a view per location hash, rendered into <main>. Views return nodes (or
// null when they moved on to another hash); a view that finishes after the reader has left
// for another hash is dropped.
import { calls } from "./api.js";
import { errorText, h } from "./dom.js";
import { address, block, evmTx } from "./views/evm.js";
import { metrics } from "./views/metrics.js";
import { overview } from "./views/overview.js";
import { node, paddress, ptx } from "./views/pchain.js";
import { primary } from "./views/primary.js";
import { search } from "./views/search.js";

const ROUTES = [
  [/^\/?$/, "overview", () => overview()],
  [/^\/metrics$/, "metrics", (m, q) => metrics(q)],
  [/^\/primary$/, "primary", () => primary()],
  [/^\/search$/, null, (m, q) => search(q)],
  [/^\/tx\/(\d+)\/(0x[0-9a-fA-F]{64})$/, null, (m, q) => evmTx(m[1], m[2], q)],
  [/^\/block\/(\d+)$/, null, (m, q) => block(m[1], q)],
  [/^\/address\/(0x[0-9a-fA-F]{40})$/, null, (m) => address(m[1])],
  [/^\/ptx\/([PXC])\/([1-9A-HJ-NP-Za-km-z]+)$/, "primary", (m) => ptx(m[1], m[2])],
  [/^\/paddress\/([\w-]+)$/, "primary", (m) => paddress(m[1])],
  [/^\/node\/(NodeID-[1-9A-HJ-NP-Za-km-z]+)$/, "primary", (m) => node(m[1])],
];

const main = document.getElementById("main");
let generation = 0;
window.__avadata = { calls, rendered: 0 };

async function render(focus) {
  const mine = ++generation;
  const hash = location.hash;
  // A picker of the view (the metric form) keeps the focus across the redraw it caused.
  const active = document.activeElement;
  const keep = active && main.contains(active) && active.name ? active.name : null;
  const [path, query] = decodeURI(location.hash.replace(/^#/, "")).split("?");
  const params = new URLSearchParams(query || "");
  const route = ROUTES.find(([re]) => re.test(path));
  for (const a of document.querySelectorAll("nav a")) {
    a.toggleAttribute("aria-current", false);
    if (route && a.dataset.view === route[1]) a.setAttribute("aria-current", "page");
  }
  main.setAttribute("aria-busy", "true");
  main.replaceChildren(h("p", { class: "muted", role: "status" }, "Loading…"));
  let nodes;
  try {
    nodes = route ? await route[2](path.match(route[0]), params) : [h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/" }, "Back to the overview"))];
  } catch (err) {
    nodes = [errorText(err)];
  }
  if (mine !== generation || nodes === null) return;
  main.replaceChildren(...nodes.filter((n) => n));
  main.removeAttribute("aria-busy");
  const title = main.querySelector("h1");
  document.title = title ? `${title.textContent} · avadata` : "avadata";
  const again = keep && main.querySelector(`[name="${keep}"]`);
  if (again) again.focus();
  else if (focus) main.focus();
  window.__avadata.rendered += 1;
  window.__avadata.hash = hash;
}

document.getElementById("search").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = e.target.q.value.trim();
  if (q) location.hash = `#/search?q=${encodeURIComponent(q)}`;
});
window.addEventListener("hashchange", () => render(true));
render(false);
