"""A webhook as the spec answers it (EVMAddressActivityResponse).

Stage: api; pure. `name` and `description` are required in the answer though optional in the
request: a webhook created without them answers "" (docs/compatibility.md, "Webhooks").
`createdAt` is epoch milliseconds, as the hosted service's examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avadata.store.webhooks.registry import Webhook


def webhook_body(hook: Webhook, addresses: Sequence[str]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"addresses": list(addresses)}
    if hook.event_signatures:
        metadata["eventSignatures"] = list(hook.event_signatures)
    return {
        "id": hook.webhook_id,
        "url": hook.url,
        "chainId": str(hook.chain_id),
        "status": hook.status,
        "createdAt": hook.created_at_ms,
        "name": hook.name,
        "description": hook.description,
        "eventType": hook.event_type,
        "metadata": metadata,
        "includeInternalTxs": hook.include_internal_txs,
        "includeLogs": hook.include_logs,
    }
