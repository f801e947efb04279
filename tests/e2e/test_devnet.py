"""The devnet's seeded chain, confirmed by the node itself.

Every assertion reads the anvil over JSON-RPC (blocks, receipts, logs, code, traces, eth_call)
and compares with the generator's ledger, an independent account of what was sent.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from typing import Any

import pytest
from eth_abi.abi import decode
from eth_utils.abi import event_signature_to_log_topic

from avadata.devnet.evm.artifacts import calldata
from avadata.devnet.evm.ledger import REVERTING_KINDS
from avadata.devnet.rpc import Rpc
from avadata.devnet.schedule import DAY, HOUR
from tests.support.devnet import SeededChain

pytestmark = pytest.mark.e2e


def topic(signature: str) -> str:
    return "0x" + event_signature_to_log_topic(signature).hex()


TRANSFER = topic("Transfer(address,address,uint256)")
SINGLE = topic("TransferSingle(address,address,address,uint256,uint256)")
BATCH = topic("TransferBatch(address,address,address,uint256[],uint256[])")
CREATED = topic("Created(address,address,bool)")
SPLIT = topic("Split(address,uint256,uint256)")


@pytest.fixture(scope="module")
def rpc(devnet_chain: SeededChain) -> Any:
    with Rpc(devnet_chain.rpc_url) as client:
        yield client


@pytest.fixture(scope="module")
def blocks(devnet_chain: SeededChain, rpc: Rpc) -> list[dict[str, Any]]:
    """Every block 0..head with full transactions, as the node serves them."""
    head = devnet_chain.ledger.last_block
    calls = [("eth_getBlockByNumber", [hex(n), True]) for n in range(head + 1)]
    return [b for i in range(0, len(calls), 100) for b in rpc.batch(calls[i : i + 100])]


@pytest.fixture(scope="module")
def receipts(devnet_chain: SeededChain, rpc: Rpc) -> dict[str, dict[str, Any]]:
    calls = [
        ("eth_getBlockReceipts", [hex(n)]) for n in range(1, devnet_chain.ledger.last_block + 1)
    ]
    out: dict[str, dict[str, Any]] = {}
    for i in range(0, len(calls), 100):
        for block in rpc.batch(calls[i : i + 100]):
            out.update({r["transactionHash"]: r for r in block})
    return out


def logs(rpc: Rpc, address: str, first_topic: str) -> list[dict[str, Any]]:
    return rpc.call(
        "eth_getLogs",
        [{"fromBlock": "0x0", "toBlock": "latest", "address": address, "topics": [first_topic]}],
    )


# -- blocks and transactions ---------------------------------------------------------------


def test_node_holds_every_block_and_transaction_of_the_ledger(devnet_chain, rpc, blocks):
    ledger = devnet_chain.ledger
    assert int(rpc.call("eth_blockNumber"), 16) == ledger.last_block
    assert len(blocks) - 1 >= 300, "the test chain has at least 300 blocks after genesis"
    on_node = [(int(b["number"], 16), t["hash"]) for b in blocks for t in b["transactions"]]
    assert on_node == [(t.block, t.hash) for t in ledger.txs], "same txs, same blocks, same order"
    assert len(on_node) >= 2_500
    assert all(b["transactions"] for b in blocks[1:]), "no empty block in the history"


def test_values_and_senders_match_the_ledger(devnet_chain, blocks):
    on_node = [
        (t["hash"], t["from"], t["to"], int(t["value"], 16))
        for b in blocks
        for t in b["transactions"]
    ]
    assert on_node == [(t.hash, t.sender, t.to, t.value) for t in devnet_chain.ledger.txs]


def test_transaction_types_and_senders_are_varied(blocks):
    txs = [t for b in blocks for t in b["transactions"]]
    assert Counter(t["type"] for t in txs).keys() >= {"0x0", "0x1", "0x2"}
    assert sum(1 for t in txs if t["to"] is None) >= 10, "direct deployments"


def test_native_transfers_among_at_least_1000_addresses(devnet_chain, blocks):
    parties: set[str] = set()
    for block in blocks:
        for tx in block["transactions"]:
            if tx["input"] == "0x" and int(tx["value"], 16) > 0:
                parties.update((tx["from"], tx["to"]))
    assert len(parties) >= 1_000
    assert set(devnet_chain.ledger.addresses) <= parties


# -- logs of each kind ---------------------------------------------------------------------


def test_erc20_transfer_logs_match_the_ledger(devnet_chain, rpc):
    ledger, counts = devnet_chain.ledger, devnet_chain.ledger.counts
    fungible = [
        *logs(rpc, ledger.roles["token"], TRANSFER),
        *logs(rpc, ledger.roles["token6"], TRANSFER),
    ]
    assert all(len(lg["topics"]) == 3 for lg in fungible), "ERC-20 Transfer: 3 topics"
    airdropped = 300  # setup: 200 holders of the token, 100 of token6
    sent = counts["erc20_transfer"] + counts["erc20_transfer_from"] + counts["erc20_mint"]
    assert len(fungible) == sent + airdropped
    old = logs(rpc, ledger.roles["old_token"], TRANSFER)
    assert len(old) == counts["old_token_transfer"] + counts["old_token_mint"] > 0


def test_erc721_transfer_logs_match_the_ledger(devnet_chain, rpc):
    counts = devnet_chain.ledger.counts
    nft = logs(rpc, devnet_chain.ledger.roles["collectible"], TRANSFER)
    assert all(len(lg["topics"]) == 4 for lg in nft), "ERC-721 Transfer: 4 topics (id indexed)"
    mints = [lg for lg in nft if int(lg["topics"][1], 16) == 0]
    assert len(mints) == counts["nft_mint"] > 0
    moves = counts["nft_transfer"] + counts["nft_safe_transfer"]
    assert len(nft) - len(mints) == moves > 0


def test_erc1155_single_and_batch_logs_match_the_ledger(devnet_chain, rpc):
    counts, multi = devnet_chain.ledger.counts, devnet_chain.ledger.roles["multi"]
    singles, batches = logs(rpc, multi, SINGLE), logs(rpc, multi, BATCH)
    assert len(singles) == counts["erc1155_single"] + counts["erc1155_mint"]
    assert len(batches) == counts["erc1155_batch"] + counts["erc1155_mint_batch"]
    assert counts["erc1155_single"] > 0 and counts["erc1155_batch"] > 0
    ids, values = decode(["uint256[]", "uint256[]"], bytes.fromhex(batches[0]["data"][2:]))
    assert len(ids) == len(values) >= 1


def test_factory_and_splitter_logs(devnet_chain, rpc):
    ledger, counts = devnet_chain.ledger, devnet_chain.ledger.counts
    created = logs(rpc, ledger.roles["factory"], CREATED)
    factory_kinds = ("factory_create", "factory_create2", "factory_nested", "factory_token")
    assert len(created) == sum(counts[k] for k in factory_kinds)
    splits = logs(rpc, ledger.roles["splitter"], SPLIT)
    # fund and split pay through the first splitter; relay's split is logged by the second.
    assert len(splits) == counts["fund"] + counts["split"]
    assert len(logs(rpc, ledger.roles["splitter2"], SPLIT)) == counts["relay"]


# -- reverts, internal value, creations ------------------------------------------------------


def test_reverted_transactions_are_in_blocks_with_status_0(devnet_chain, receipts):
    ledger = devnet_chain.ledger
    failed = {h for h, r in receipts.items() if r["status"] == "0x0"}
    assert failed == {t.hash for t in ledger.reverted}
    assert {t.kind for t in ledger.reverted} == REVERTING_KINDS
    assert all(int(receipts[h]["blockNumber"], 16) > 0 for h in failed)


def _trace(rpc: Rpc, tx_hash: str) -> dict[str, Any]:
    return rpc.call("debug_traceTransaction", [tx_hash, {"tracer": "callTracer"}])


def test_value_moves_internally_and_reverts_after_internal_calls(devnet_chain, rpc):
    ledger = devnet_chain.ledger
    split = next(t for t in ledger.txs if t.kind == "split")
    calls = _trace(rpc, split.hash)["calls"]
    assert len(calls) >= 2 and all(c["type"] == "CALL" and int(c["value"], 16) > 0 for c in calls)
    relay = next(t for t in ledger.txs if t.kind == "relay")
    (inner,) = _trace(rpc, relay.hash)["calls"]
    assert inner["to"] == ledger.roles["splitter2"] and len(inner["calls"]) >= 2
    failing = _trace(rpc, next(t for t in ledger.txs if t.kind == "revert_split").hash)
    assert "error" in failing and len(failing["calls"]) >= 2


def test_code_exists_at_every_created_address(devnet_chain, rpc):
    contracts = devnet_chain.ledger.contracts
    codes = rpc.batch([("eth_getCode", [c.address, "latest"]) for c in contracts])
    assert all(len(code) > 2 for code in codes)
    by_factory = [c for c in contracts if c.factory == devnet_chain.ledger.roles["factory"]]
    assert any(c.create2 for c in by_factory) and any(not c.create2 for c in by_factory)
    assert any(
        c.name == "Leaf" and c.factory not in (None, *devnet_chain.ledger.roles.values())
        for c in contracts
    ), "a contract created by a factory-created contract"
    assert any(
        c.factory is None and c.name == "Token" and c.deployer in devnet_chain.ledger.addresses
        for c in contracts
    ), "an ERC-20 deployed by a user"


def test_create2_children_are_where_the_created_event_says(devnet_chain, rpc, receipts):
    for record in [c for c in devnet_chain.ledger.contracts if c.create2][:5]:
        (log,) = [lg for lg in receipts[record.tx_hash]["logs"] if lg["topics"][0] == CREATED]
        assert "0x" + log["topics"][1][-40:] == record.address


# -- time --------------------------------------------------------------------------------------


def test_timestamps_span_40_days_with_gaps_and_busy_hours(devnet_chain, blocks):
    times = [int(b["timestamp"], 16) for b in blocks[1:]]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert {i + 1: t for i, t in enumerate(times)} == devnet_chain.ledger.block_timestamps
    assert times[-1] - times[0] >= 40 * DAY
    start = devnet_chain.ledger.start_timestamp
    days = {(t - start) // DAY for t in times}
    missing = set(range(max(days) + 1)) - days
    assert missing, "at least one day without blocks"
    assert missing == set(devnet_chain.ledger.empty_days)
    hours = Counter(t // HOUR for t in times)
    assert max(hours.values()) >= 3, "several blocks in some simulated hour"


# -- what decoders will read ---------------------------------------------------------------


def _call(rpc: Rpc, to: str, data: str, block: str = "latest") -> bytes:
    return bytes.fromhex(rpc.call("eth_call", [{"to": to, "data": data}, block])[2:])


def test_token_metadata_string_and_bytes32(devnet_chain, rpc):
    roles = devnet_chain.ledger.roles
    (name,) = decode(["string"], _call(rpc, roles["token"], calldata("name()")))
    (decimals,) = decode(["uint8"], _call(rpc, roles["token6"], calldata("decimals()")))
    assert name == "Avadata Token" and decimals == 6
    raw = _call(rpc, roles["old_token"], calldata("symbol()"))
    assert len(raw) == 32 and raw.rstrip(b"\0") == b"MKR", "bytes32, not an ABI string"


def test_nft_uris_are_data_http_and_ipfs(devnet_chain, rpc):
    collectible = devnet_chain.ledger.roles["collectible"]
    uris = [
        decode(["string"], _call(rpc, collectible, calldata("tokenURI(uint256)", i)))[0]
        for i in (1, 2, 3)
    ]
    assert uris[0].startswith("http://") and uris[1].startswith("ipfs://")
    prefix = "data:application/json;base64,"
    assert uris[2].startswith(prefix)
    assert json.loads(base64.b64decode(uris[2][len(prefix) :]))["name"] == "Devnet Punks #3"
    (uri,) = decode(
        ["string"], _call(rpc, devnet_chain.ledger.roles["multi"], calldata("uri(uint256)", 7))
    )
    assert "{id}" in uri


def test_past_state_answers_eth_call(devnet_chain, rpc):
    """A live anvil keeps history: a holder's balance differs between blocks."""
    token = devnet_chain.ledger.roles["token"]
    sends = [t for t in devnet_chain.ledger.txs if t.kind == "erc20_transfer" and t.to == token]
    tx = sends[len(sends) // 2]
    data = calldata("balanceOf(address)", tx.sender)
    before = int.from_bytes(_call(rpc, token, data, hex(tx.block - 1)), "big")
    after = int.from_bytes(_call(rpc, token, data, hex(tx.block)), "big")
    assert before != after
