"""The store the OpenAPI conformance test drives every operation against: small, but holding
real rows for every API, so answers carry data rather than 404s.

- the synthetic EVM chain (tests/api/synthetic.py) written through the writer with the metrics
  rollup applied (the Metrics API's series come from the same rows);
- a Fuji P-chain of codec-built blocks indexed by the real primary indexer from a stub Index
  API (tests/primary/test_ingest.py's chain);
- an API key and one webhook of it (the webhooks API answers only a key's own webhooks).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from avadata.decode.codec.ids import cb58_encode, sha256
from avadata.indexer.primary.chain import index_chain
from avadata.store.engine import make_engine
from avadata.store.identity import record_primary_network
from avadata.store.keys import create_key
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.migrate import migrate
from avadata.store.webhooks import registry
from avadata.store.webhooks.registry import NewWebhook
from avadata.store.writer import mark_chain, write_evm_batch
from tests.api.synthetic import ALICE, BLOCKCHAIN_ID, CHAIN_ID, Chain, build
from tests.primary.test_index_api import _source
from tests.primary.test_ingest import _chain

FUJI_ID = 5
WEBHOOK_ID = "0b5e3c2a-6f1d-4c7e-9a55-2d1f0c8b7e11"


@dataclass(frozen=True)
class Store:
    url: str
    evm: Chain
    p_tx_ids: list[str]
    p_block_ids: list[str]
    api_key: str


def write(path: Path) -> Store:
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    migrate(engine)
    chain, batches = build()
    for b in batches:
        write_evm_batch(engine, b, appliers=[apply_metrics])
    mark_chain(engine, CHAIN_ID, name="Synthetic", blockchain_id=BLOCKCHAIN_ID, network="testnet")
    blocks, ids = _chain(30)
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))
    record_primary_network(engine, FUJI_ID)
    key, info = create_key(engine, "openapi", None)
    hook = NewWebhook(
        event_type="address_activity",
        chain_id=CHAIN_ID,
        url="https://example.com/hook",
        name="openapi",
        description="",
        include_internal_txs=True,
        include_logs=True,
        event_signatures=(),
        addresses=(ALICE,),
    )
    registry.create(engine, info.key_id, hook, WEBHOOK_ID)
    engine.dispose()
    block_ids = [cb58_encode(sha256(b)) for b in blocks]
    return Store(url, chain, ids, block_ids, key)
