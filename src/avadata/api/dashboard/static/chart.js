// Bar charts drawn as SVG by the page (no chart library, nothing fetched from elsewhere).
// Each bar keeps the value it was drawn from (data-v, data-t) and a tooltip, so what is drawn
// can be checked against the API's answer; a bar's height is value / max of the plot height.
import { compact } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";
let firstDrawn = false;

function s(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

export function stamp(t, hourly) {
  const iso = new Date(t * 1000).toISOString();
  return hourly ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

// points: [{t, v}] oldest first. Returns an <svg>; marks "avadata:first-chart" when the first
// chart of the page reaches the screen (the page-ready time the tests measure).
export function barChart(points, { label, small = false, hourly = false }) {
  const W = small ? 240 : 880;
  const H = small ? 48 : 260;
  const pad = small ? { l: 2, r: 2, t: 2, b: 2 } : { l: 56, r: 12, t: 12, b: 28 };
  const plotW = W - pad.l - pad.r;
  const plotH = H - pad.t - pad.b;
  const values = points.map((p) => Number(p.v));
  const max = Math.max(0, ...values) || 1;
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: small ? "chart spark" : "chart",
    role: "img",
    "aria-label": label,
    "data-points": points.length,
    "data-max": max,
    "data-plot-top": pad.t,
    "data-plot-height": plotH,
    preserveAspectRatio: "none",
  });
  svg.append(s("title", {}, label));
  if (!small) {
    svg.append(s("line", { class: "axis", x1: pad.l, y1: pad.t + plotH, x2: W - pad.r, y2: pad.t + plotH }));
    svg.append(s("text", { x: pad.l - 6, y: pad.t + 10, "text-anchor": "end" }, compact(max)));
    svg.append(s("text", { x: pad.l - 6, y: pad.t + plotH, "text-anchor": "end" }, "0"));
    if (points.length) {
      svg.append(s("text", { x: pad.l, y: H - 8 }, stamp(points[0].t, hourly)));
      svg.append(s("text", { x: W - pad.r, y: H - 8, "text-anchor": "end" }, stamp(points[points.length - 1].t, hourly)));
    }
  }
  const step = points.length ? plotW / points.length : 0;
  const width = Math.max(step * 0.8, 0.5);
  points.forEach((p, i) => {
    const v = Number(p.v);
    const height = (Math.max(v, 0) / max) * plotH;
    const bar = s("rect", {
      class: "bar",
      x: (pad.l + i * step).toFixed(2),
      y: (pad.t + plotH - height).toFixed(2),
      width: width.toFixed(2),
      height: height.toFixed(2),
      "data-t": p.t,
      "data-v": p.v,
    });
    bar.append(s("title", {}, `${stamp(p.t, hourly)}: ${compact(v)}`));
    svg.append(bar);
  });
  if (!firstDrawn) {
    requestAnimationFrame(() => {
      if (!firstDrawn && svg.isConnected) {
        firstDrawn = true;
        performance.mark("avadata:first-chart");
      }
    });
  }
  return svg;
}
