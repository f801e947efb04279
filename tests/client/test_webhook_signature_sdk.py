"""Our deliveries' `x-signature` verifies with the official SDK's own exported check
(chainkit `utils/validateSignature`: json-canonicalize, the hex-decoded secret), on messages
built from the synthetic store and on one with non-ASCII text (RFC 8785 keeps it as UTF-8);
a tampered body does not."""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import pytest

from avadata.delivery import payload, signing
from avadata.store.engine import make_engine
from avadata.store.webhooks import events
from tests.api.synthetic import ALICE, CHAIN_ID, write_store
from tests.support.server import TOOLS

SCRIPT = Path(__file__).with_name("signature.mjs")

pytestmark = [pytest.mark.client]


def test_the_sdks_check_accepts_our_signatures(tmp_path: Path) -> None:
    url, _chain = write_store(tmp_path / "sig.db")
    engine = make_engine(url, read_only=True)
    with engine.connect() as conn:
        head = events.indexed_head(conn, CHAIN_ID)
        assert head is not None
        found = events.next_positions(conn, CHAIN_ID, [ALICE], (-1, 0), head, 20)
        loaded = events.load_events(conn, CHAIN_ID, found, internals=True, logs=True)
    engine.dispose()
    messages = [payload.message("wh", CHAIN_ID, ev, internals=True, logs=True) for ev in loaded]
    messages.append({"webhookId": "wh", "note": "Jalapeño ✓ 日本", "n": 12, "x": [None, True]})
    secret = secrets.token_hex(32)
    lines = []
    for m in messages:
        body = payload.canonical(m)
        sig = signing.headers(secret, body, 1_700_000_000)[signing.SIGNATURE]
        lines.append({"secret": secret, "body": body.decode(), "signature": sig})
    tampered = dict(lines[0], body=lines[0]["body"].replace('"wh"', '"wx"'))
    lines.append(tampered)
    data = tmp_path / "deliveries.jsonl"
    data.write_text("\n".join(json.dumps(x) for x in lines))
    proc = subprocess.run(
        ["node", str(SCRIPT), str(TOOLS), str(data)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    out = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    assert out["valid"] == [True] * len(messages) + [False], proc.stderr
