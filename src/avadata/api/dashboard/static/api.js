// The page's only way to the server: GET on the JSON API, timed. Every call is kept in
// `calls` (window.__avadata.calls) so a test can see what the page asked and how long it took.
export const calls = [];

export class ApiError extends Error {
  constructor(status, message, url) {
    super(`${status}: ${message}`);
    this.status = status;
    this.url = url;
  }
}

export function url(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export async function get(path, params) {
  const target = url(path, params);
  const started = performance.now();
  const res = await fetch(target, { headers: { accept: "application/json" } });
  const body = await res.json().catch(() => null);
  calls.push({ url: target, status: res.status, ms: performance.now() - started });
  if (!res.ok) throw new ApiError(res.status, (body && body.message) || res.statusText, target);
  return body;
}

// Follows nextPageToken until `key` holds `limit` items, the list ends or `stop(item)` says
// enough (lists are newest first, so a time bound ends the walk). Returns {items, complete}.
export async function collect(path, params, key, { limit = 1000, stop = null } = {}) {
  const items = [];
  let token = params.pageToken;
  for (;;) {
    const page = await get(path, { ...params, pageToken: token });
    for (const item of page[key] || []) {
      if (stop && stop(item)) return { items, complete: true };
      items.push(item);
      if (items.length >= limit) return { items, complete: !page.nextPageToken };
    }
    token = page.nextPageToken;
    if (!token) return { items, complete: true };
  }
}
