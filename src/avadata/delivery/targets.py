"""Which receiver URLs a server may call: any http(s) URL, but, when the operator says so
(Settings.refuses_private_targets), none on a private, loopback, link-local or reserved
address, so an exposed server cannot be made to probe its own network.

Stage: delivery. `literal_refusal` is pure (the API checks a URL with it when it is set);
`resolved_refusal` also resolves the host name (the worker, before each POST: a name may
resolve elsewhere later).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


def _private(ip: str) -> bool:
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    return not addr.is_global or addr.is_multicast


def literal_refusal(url: str, refuse_private: bool) -> str | None:
    """Why `url` cannot be a receiver, from its text alone; None when it can."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"must be an http(s) URL with a host (got {url!r})"
    if not refuse_private:
        return None
    host = parts.hostname
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return f"private and loopback receivers are refused by this server (got {host!r})"
    try:
        private = _private(host)
    except ValueError:
        return None  # a name: resolved before each delivery
    return (
        f"private and loopback receivers are refused by this server (got {host!r})"
        if private
        else None
    )


def resolved_refusal(url: str, refuse_private: bool) -> str | None:
    """`literal_refusal`, then every address the host resolves to (blocking DNS)."""
    reason = literal_refusal(url, refuse_private)
    if reason is not None or not refuse_private:
        return reason
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError as exc:
        return f"cannot resolve {host!r}: {exc}"
    bad = sorted({str(i[4][0]) for i in infos if _private(str(i[4][0]))})
    return f"{host!r} resolves to a private address ({', '.join(bad)})" if bad else None
