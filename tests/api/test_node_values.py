"""The Data API against the node: a seeded devnet chain (anvil) is indexed, served, and every
checked value comes from the node's JSON-RPC (eth_getBlockByNumber, eth_getLogs, eth_call
balanceOf and eth_getBalance at past blocks), never from our tables."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from eth_utils.address import to_checksum_address

from avadata.api.app import create_app
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.api.test_paging import walk

pytestmark = pytest.mark.e2e
CHAIN_ID = 43119


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[TestClient, object, object, str]]:
    from avadata.devnet.evm import traffic
    from avadata.indexer.fetch.protocol import NativeBalanceMode
    from avadata.indexer.run import RunOptions, index_chains
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate
    from tests.support.node import Node

    config = traffic.TrafficConfig(days=10, blocks=60, txs_per_block=6, accounts=60)
    anvil, ledger = traffic.start_with_traffic(CHAIN_ID, config)
    try:
        path: Path = tmp_path_factory.mktemp("node") / "store.db"
        url = f"sqlite:///{path}"
        engine = make_engine(url)
        migrate(engine)
        # History mode: a native balance at a past block is then the node's (the default
        # head mode knows each balance from the indexing head on).
        options = RunOptions(once=True, chunk_blocks=20, native_balances=NativeBalanceMode.HISTORY)
        asyncio.run(index_chains(engine, [anvil.rpc_url], options))
        engine.dispose()
        app = create_app(Settings(db_url=url, page_token_secret="node-values-secret"))
        with TestClient(app) as client:
            yield client, Node(anvil.rpc_url), ledger, url
    finally:
        anvil.stop()


def test_blocks_match_eth_get_block(served) -> None:
    client, node, _, _ = served
    head = node.head()
    api = walk(client, f"/v1/chains/{CHAIN_ID}/blocks", "blocks", 100)
    assert [int(b["blockNumber"]) for b in api] == list(range(head, -1, -1))
    by_number = {int(b["blockNumber"]): b for b in api}
    for blk in node.blocks(head):
        got = by_number[int(blk["number"], 16)]
        assert got["blockHash"] == blk["hash"] and got["parentHash"] == blk["parentHash"]
        assert got["blockTimestamp"] == int(blk["timestamp"], 16)
        assert got["gasUsed"] == str(int(blk["gasUsed"], 16))
        assert got["gasLimit"] == str(int(blk["gasLimit"], 16))
        assert got["baseFee"] == str(int(blk.get("baseFeePerGas", "0x0"), 16))
        assert got["txCount"] == len(blk["transactions"])


def test_block_transactions_match_the_node(served) -> None:
    client, node, _, _ = served
    head = node.head()
    blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in range(head + 1)])
    busy = sorted(blocks, key=lambda b: -len(b["transactions"]))[:5]
    for blk in busy:
        api = client.get(f"/v1/chains/{CHAIN_ID}/blocks/{blk['hash']}/transactions").json()
        receipts = node.batch(
            [("eth_getTransactionReceipt", [t["hash"]]) for t in blk["transactions"]]
        )
        assert len(api["transactions"]) == len(blk["transactions"])
        for got, tx, rc in zip(api["transactions"], blk["transactions"], receipts, strict=True):
            assert got["txHash"] == tx["hash"]
            assert got["blockIndex"] == int(tx["transactionIndex"], 16)
            assert got["from"]["address"] == to_checksum_address(tx["from"])
            to = tx["to"] or rc["contractAddress"]
            assert got["to"]["address"] == to_checksum_address(to)
            assert got["value"] == str(int(tx["value"], 16))
            assert got["nonce"] == str(int(tx["nonce"], 16))
            assert got["gasUsed"] == str(int(rc["gasUsed"], 16))
            assert got["txStatus"] == str(int(rc["status"], 16))


def test_token_transfers_match_the_logs(served) -> None:
    client, node, ledger, _ = served
    logs = node.token_transfers(node.head())
    for role in ("token", "collectible", "multi"):
        token = ledger.roles[role]
        api = walk(client, f"/v1/chains/{CHAIN_ID}/tokens/{token}/transfers", "transfers", 50)
        expected = Counter(
            (blk, li, frm, to, tid, val)
            for (blk, li, _bi, tok, frm, to, tid, val) in logs
            if tok == token.lower()
        )
        got: Counter[tuple[object, ...]] = Counter()
        for t in api:
            member = t.get("erc20Token") or t.get("erc721Token") or t.get("erc1155Token")
            tid = None if "erc20Token" in t else int(member["tokenId"])
            val = int(t.get("value", 1))
            got[
                (
                    int(t["blockNumber"]),
                    t["logIndex"],
                    t["from"]["address"].lower(),
                    t["to"]["address"].lower(),
                    tid,
                    val,
                )
            ] += 1
        assert expected and got == expected, role


def test_erc20_balances_match_balance_of(served) -> None:
    client, node, ledger, _ = served
    head = node.head()
    token = ledger.roles["token"]
    logs = node.token_transfers(head)
    holders = sorted({to for (_b, _l, _i, tok, _f, to, _t, _v) in logs if tok == token.lower()})
    holders = [h for h in holders if h != "0x" + "00" * 20][:6]
    assert holders
    for holder in holders:
        for block in (head // 3, 2 * head // 3, head):
            api = client.get(
                f"/v1/chains/{CHAIN_ID}/addresses/{holder}/balances:listErc20",
                params={
                    "blockNumber": str(block),
                    "contractAddresses": token,
                    "filterSpamTokens": "false",
                },
            ).json()
            want = node.balance_of(token, holder, block)
            got = [b for b in api["erc20TokenBalances"] if b["address"].lower() == token.lower()]
            assert (int(got[0]["balance"]) if got else 0) == want, (holder, block)


def test_native_balance_matches_get_balance(served) -> None:
    client, node, ledger, _ = served
    head = node.head()
    for address in ledger.addresses[:5]:
        api = client.get(f"/v1/chains/{CHAIN_ID}/addresses/{address}/balances:listErc20").json()
        assert api["nativeTokenBalance"]["balance"] == str(node.native_balance(address, head))


def _resolve_nfts(url: str) -> None:
    """Run the NFT metadata worker until nothing is due. No fetch function: nothing but the
    node is contacted; data: URIs resolve offline."""
    import httpx

    from avadata.indexer.nft import calls
    from avadata.indexer.nft.worker import run_once
    from avadata.store.engine import make_engine

    engine = make_engine(url)
    with httpx.Client(timeout=10) as http:

        def token_uri(rpc_url: str, token: str, standard: str, token_id: int) -> str:
            return calls.token_uri(http, rpc_url, token, standard, token_id)

        while run_once(engine, Settings(db_url=url), token_uri=token_uri, fetch=None):
            pass
    engine.dispose()


def test_nft_worker_reads_token_uris_from_the_node(served) -> None:
    client, node, ledger, url = served
    collectible = ledger.roles["collectible"]
    _resolve_nfts(url)
    tokens = walk(
        client, f"/v1/chains/{CHAIN_ID}/nfts/collections/{collectible}/tokens", "tokens", 100
    )
    assert tokens
    name = node.call("eth_call", [{"to": collectible, "data": "0x06fdde03"}, "latest"])
    from eth_abi.abi import decode

    (collection_name,) = decode(["string"], bytes.fromhex(name[2:]))
    for t in tokens:
        tid = int(t["tokenId"])
        meta = t["metadata"]
        if "ownerAddress" not in t:  # burnt: tokenURI reverts on the node
            assert meta["indexStatus"] == "MISSING_TOKEN"
        elif tid % 3 == 0:
            assert meta["indexStatus"] == "INDEXED"
            assert meta["name"] == f"{collection_name} #{tid}"
            assert t["tokenUri"].startswith("data:application/json;base64,")
        elif tid % 3 == 1:
            assert t["tokenUri"] == f"http://127.0.0.1:9650/nft/{tid}.json"
            assert meta["indexStatus"] == "UNINDEXED"
        else:
            assert t["tokenUri"] == f"ipfs://bafybeidevnetcollectible/{tid}"
            assert meta["indexStatus"] == "UNINDEXED"


def _listed_frames(frame: dict[str, object], depth: int = 0) -> list[tuple[str, str, int]]:
    """(type, to, value) of the frames the Data API lists, from the node's callTracer tree:
    below the root, a non-zero-value CALL/CALLCODE or any CREATE, in call order."""
    out: list[tuple[str, str, int]] = []
    op = str(frame["type"]).upper()
    value = int(str(frame.get("value") or "0x0"), 16)
    if depth > 0 and ((op in ("CALL", "CALLCODE") and value) or op.startswith("CREATE")):
        out.append((op, str(frame.get("to") or "").lower(), value))
    for child in frame.get("calls") or []:  # type: ignore[attr-defined]
        out += _listed_frames(child, depth + 1)
    return out


def test_get_transaction_matches_receipt_and_trace(served) -> None:
    client, node, _, _ = served
    head = node.head()
    blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in range(head + 1)])
    txs = [(b, t) for b in blocks for t in b["transactions"]][::7][:40]
    assert txs
    transfer = "0x" + "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    for blk, tx in txs:
        rc = node.call("eth_getTransactionReceipt", [tx["hash"]])
        trace = node.call("debug_traceTransaction", [tx["hash"], {"tracer": "callTracer"}])
        body = client.get(f"/v1/chains/{CHAIN_ID}/transactions/{tx['hash']}").json()
        native = body["nativeTransaction"]
        assert native["input"] == tx["input"]
        assert native["gasUsed"] == str(int(rc["gasUsed"], 16))
        assert native["txStatus"] == str(int(rc["status"], 16))
        assert native["baseFeePerGas"] == str(int(blk.get("baseFeePerGas", "0x0"), 16))
        if "maxFeePerGas" in tx:
            assert native["maxFeePerGas"] == str(int(tx["maxFeePerGas"], 16))
        erc20_logs = [
            int(lg["logIndex"], 16)
            for lg in rc["logs"]
            if lg["topics"] and lg["topics"][0] == transfer and len(lg["topics"]) == 3
        ]
        assert [t["logIndex"] for t in body["erc20Transfers"]] == erc20_logs
        got = [
            (i["internalTxType"], i["to"]["address"].lower(), int(i["value"]))
            for i in body["internalTransactions"]
        ]
        assert got == _listed_frames(trace), tx["hash"]


def test_native_balance_at_a_block_matches_get_balance(served) -> None:
    client, node, ledger, _ = served
    head = node.head()
    for address in ledger.addresses[:6]:
        for block in (head // 2, head):
            api = client.get(
                f"/v1/chains/{CHAIN_ID}/addresses/{address}/balances:getNative",
                params={"blockNumber": str(block)},
            ).json()
            assert api["nativeTokenBalance"]["balance"] == str(
                node.native_balance(address, block)
            ), (address, block)


def test_collectibles_match_owner_of_and_balance_of(served) -> None:
    from eth_abi.abi import decode, encode

    client, node, ledger, _ = served
    head = node.head()
    logs = node.token_transfers(head)
    nft_tokens = {ledger.roles["collectible"].lower(), ledger.roles["multi"].lower()}
    holders = sorted({to for (*_k, tok, _f, to, _t, _v) in logs if tok in nft_tokens})
    holders = [h for h in holders if h != "0x" + "00" * 20][:6]
    assert holders
    seen = 0
    for holder in holders:
        items = walk(
            client,
            f"/v1/chains/{CHAIN_ID}/addresses/{holder}/balances:listCollectibles",
            "collectibleBalances",
            50,
        )
        for item in items:
            token, tid = item["address"], int(item["tokenId"])
            if item["ercType"] == "ERC-721":
                data = "0x6352211e" + encode(["uint256"], [tid]).hex()  # ownerOf
                owner = node.call("eth_call", [{"to": token, "data": data}, hex(head)])
                assert "0x" + owner[-40:] == holder
            else:
                # balanceOfBatch (the standard's; the devnet's balanceOf getter takes (id, owner)).
                args = encode(["address[]", "uint256[]"], [[holder], [tid]]).hex()
                raw = node.call("eth_call", [{"to": token, "data": "0x4e1273f4" + args}, hex(head)])
                (held,) = decode(["uint256[]"], bytes.fromhex(raw[2:]))
                assert int(item["balance"]) == held[0]
            seen += 1
    assert seen


def test_token_details_match_token_uri(served) -> None:
    from eth_abi.abi import decode, encode

    client, node, ledger, url = served
    collectible = ledger.roles["collectible"]
    _resolve_nfts(url)
    tokens = walk(
        client, f"/v1/chains/{CHAIN_ID}/nfts/collections/{collectible}/tokens", "tokens", 100
    )
    owned = [t for t in tokens if "ownerAddress" in t][:5]
    assert owned
    for t in owned:
        tid = int(t["tokenId"])
        got = client.get(f"/v1/chains/{CHAIN_ID}/nfts/collections/{collectible}/tokens/{tid}")
        body = got.json()
        data = "0xc87b56dd" + encode(["uint256"], [tid]).hex()  # tokenURI
        raw = node.call("eth_call", [{"to": collectible, "data": data}, "latest"])
        (uri,) = decode(["string"], bytes.fromhex(raw[2:]))
        assert body["tokenUri"] == uri and body["ownerAddress"] == t["ownerAddress"]
