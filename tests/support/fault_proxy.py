"""A loopback HTTP proxy in front of a JSON-RPC node that injects faults.

A request's path is kept (`/ext/index/P/block` goes to the same path upstream).

Faults, drawn from a seeded RNG per request: a delay past the client's timeout, HTTP 429 (with
Retry-After), HTTP 500, and a 200 whose JSON body is cut short. Everything else is forwarded,
after a fixed latency if one is asked (a slow node).
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import httpx


class FaultProxy:
    def __init__(
        self,
        upstream: str,
        *,
        seed: int = 7,
        rate: float = 0.2,
        delay: float = 2.5,
        refuse: frozenset[str] = frozenset(),
        latency: float = 0.0,
        batch_answer_cap: int | None = None,
    ):
        """`refuse`: methods answered with JSON-RPC "method not found", as a node without them.
        `latency`: seconds every request waits before it is forwarded (a slow node).
        `batch_answer_cap`: bytes of results a batch's answer may hold, as geth's
        batch-response-max-size: the call that passes it is answered, each one after it gets
        "response too large" (-32003)."""
        self.upstream = upstream
        self.refuse = refuse
        self.latency = latency
        self.batch_answer_cap = batch_answer_cap
        # Calls answered "response too large" (batch_answer_cap).
        self.cut_off = 0
        # While set, every request is answered 503 (a node restarting); counted in `refused`.
        self.down = False
        self.refused = 0
        self.rng = random.Random(seed)
        self.rate = rate
        self.delay = delay
        self.injected: Counter[str] = Counter()
        # Every call answered by the node: (method, first parameter as JSON, or all of them
        # when named) -> times.
        self.forwarded: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=60)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if proxy.down:
                    with proxy._lock:
                        proxy.refused += 1
                    return self._send(503, b"node restarting")
                fault = proxy._draw()
                if proxy.latency:
                    time.sleep(proxy.latency)
                if fault == "timeout":
                    time.sleep(proxy.delay)
                if fault == "429":
                    return self._send(429, b'{"error":"slow down"}', {"Retry-After": "0"})
                if fault == "500":
                    return self._send(500, b"internal error")
                proxy._count(body)
                if proxy.refuse:
                    content, status = proxy._answer_refusing(body)
                else:
                    upstream = proxy._client.post(
                        proxy.target(self.path),
                        content=body,
                        headers={"Content-Type": "application/json"},
                    )
                    content, status = upstream.content, upstream.status_code
                if proxy.batch_answer_cap is not None and status == 200:
                    content = proxy._cap(content)
                if fault == "truncate" and len(content) > 2:
                    content = content[: len(content) // 2]
                self._send(status, content)

            def _send(
                self, status: int, content: bytes, headers: dict[str, str] | None = None
            ) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(content)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(content)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout): exactly what a timeout fault wants

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _answer_refusing(self, body: bytes) -> tuple[bytes, int]:
        calls = json.loads(body)
        single = isinstance(calls, dict)
        out = []
        for call in [calls] if single else calls:
            if call.get("method") in self.refuse:
                err = {"code": -32601, "message": f"the method {call['method']} does not exist"}
                out.append({"jsonrpc": "2.0", "id": call.get("id"), "error": err})
            else:
                r = self._client.post(self.upstream, json=call)
                out.append(r.json())
        return json.dumps(out[0] if single else out).encode(), 200

    def _cap(self, content: bytes) -> bytes:
        answers = json.loads(content)
        if not isinstance(answers, list):
            return content  # one call is no batch: no cap
        size = 0
        for i, a in enumerate(answers):
            if size > (self.batch_answer_cap or 0):
                err = {"code": -32003, "message": "response too large"}
                answers[i] = {"jsonrpc": "2.0", "id": a.get("id"), "error": err}
                with self._lock:
                    self.cut_off += 1
            else:
                size += len(json.dumps(a.get("result")))
        return json.dumps(answers).encode()

    def target(self, path: str) -> str:
        """The upstream URL a request path maps to: the upstream itself for "/", else the path
        under it (avalanchego serves each API at its own path)."""
        path = urlsplit(path).path  # a client using us as its proxy sends the absolute URL
        return self.upstream if path in ("", "/") else self.upstream.rstrip("/") + path

    def _count(self, body: bytes) -> None:
        try:
            calls = json.loads(body)
        except ValueError:
            return
        with self._lock:
            for call in [calls] if isinstance(calls, dict) else calls:
                params = call.get("params") or [None]
                first = params if isinstance(params, dict) else params[0]  # named, or the first
                self.forwarded[(str(call.get("method")), json.dumps(first))] += 1

    def _draw(self) -> str | None:
        with self._lock:
            if self.rng.random() >= self.rate:
                return None
            fault = self.rng.choice(["timeout", "429", "500", "truncate"])
            self.injected[fault] += 1
            return fault

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
