"""The signature headers of a delivery.

Stage: delivery; pure. `x-signature` is the hosted service's documented scheme (reference
webhooks.md, section 4): HMAC-SHA256 keyed with the hex-decoded secret over the canonical JSON,
base64. It covers the body only, so a captured delivery could be replayed: ours adds
`x-avadata-timestamp` (Unix seconds of this attempt) and `x-avadata-signature`, the same HMAC
over "<timestamp>.<canonical JSON>", so a receiver can refuse an old or altered timestamp.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

SIGNATURE = "x-signature"
TIMESTAMP = "x-avadata-timestamp"
TIMED_SIGNATURE = "x-avadata-signature"


def _mac(secret_hex: str, data: bytes) -> str:
    digest = hmac.new(bytes.fromhex(secret_hex), data, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def headers(secret_hex: str, body: bytes, timestamp: int) -> dict[str, str]:
    """The headers of one attempt to POST `body` (the canonical JSON)."""
    return {
        "content-type": "application/json",
        SIGNATURE: _mac(secret_hex, body),
        TIMESTAMP: str(timestamp),
        TIMED_SIGNATURE: _mac(secret_hex, f"{timestamp}.".encode() + body),
    }
