// Building the page: elements from data (text is never parsed as HTML) and readable numbers.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function link(href, text, title) {
  return h("a", { href, title }, text);
}

// A table in a scrollable region (keyboard-scrollable at narrow widths).
// `stack`: below 600 px each row becomes a card of "header: value" lines (style.css).
export function table(label, headers, rows, { stack = false } = {}) {
  const head = h("tr", {}, headers.map((c) => h("th", { scope: "col", class: c.num ? "num" : null }, c.label ?? c)));
  const body = rows.map((r) =>
    h("tr", {}, r.map((cell, i) => h("td", {
      class: headers[i].num ? "num" : headers[i].cls || null, "data-label": headers[i].label ?? headers[i],
    }, cell))),
  );
  return h(
    "div",
    { class: stack ? "scroll stack" : "scroll", tabindex: "0", role: "region", "aria-label": label },
    h("table", {}, h("caption", { class: "visually-hidden" }, label), h("thead", {}, head), h("tbody", {}, body)),
  );
}

export function fields(pairs) {
  return h("dl", { class: "fields" }, pairs.filter((p) => p).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v ?? "—")]));
}

export function errorText(err) {
  return h("p", { class: "error", role: "alert" }, `Could not load: ${err.message}`);
}

const INT = new Intl.NumberFormat("en-US");
const COMPACT = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 2 });
const DEC = new Intl.NumberFormat("en-US", { maximumFractionDigits: 4 });

export function num(v) {
  if (v === null || v === undefined || v === "") return "—";
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  return Number.isInteger(n) ? INT.format(n) : DEC.format(n);
}

export function compact(v) {
  return COMPACT.format(Number(v));
}

// An integer amount in base units (wei, nAVAX) shown in whole units, exactly (BigInt).
export function units(amount, decimals, symbol) {
  if (amount === null || amount === undefined || amount === "") return "—";
  let n = BigInt(amount);
  const neg = n < 0n;
  if (neg) n = -n;
  const base = 10n ** BigInt(decimals);
  const whole = n / base;
  let frac = (n % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  if (frac.length > 4) frac = frac.slice(0, 4) + "…";
  const text = INT.format(whole) + (frac ? "." + frac : "");
  return `${neg ? "-" : ""}${text}${symbol ? " " + symbol : ""}`;
}

export const avax = (nAvax) => units(nAvax, 9, "AVAX");

export function when(ts) {
  if (ts === null || ts === undefined) return "—";
  const d = new Date(Number(ts) * 1000);
  return d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

export function age(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

export function short(id, keep = 10) {
  const s = String(id);
  return s.length <= keep * 2 + 1 ? s : `${s.slice(0, keep)}…${s.slice(-6)}`;
}

export const now = () => Math.floor(Date.now() / 1000);
