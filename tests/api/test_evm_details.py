"""The rest of the EVM Data API on the synthetic chain (issue 20): one block, one transaction,
an address's transactions, native and NFT balances, contract and token details, reindexNft,
the lists across chains and the health checks. Expected values are computed here from the
records the synthetic chain wrote; every body is also checked against the hosted service's
schema for its operation (tests/support/glacier.py), closed: no member the reference lacks."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from eth_utils.address import to_checksum_address

from avadata.store.rows import is_listed_call
from tests.api.http import TestClient
from tests.api.synthetic import (
    ALICE,
    BLOCKCHAIN_ID,
    BOB,
    CAROL,
    CHAIN_ID,
    ERC20,
    ERC20_NO_META,
    ERC721,
    ERC1155,
    Chain,
)
from tests.support.glacier import check

BASE = f"/v1/chains/{CHAIN_ID}"


def _get(client: TestClient, url: str, template: str, *, strict: bool = True, **params: Any) -> Any:
    r = client.get(url, params=params)
    assert r.status_code == 200, r.text
    body = r.json()
    check(body, template, strict=strict)
    return body


def _walk(client: TestClient, url: str, template: str, key: str, **params: Any) -> list[Any]:
    items: list[Any] = []
    token = None
    for _ in range(200):
        extra = dict(params, pageToken=token) if token else params
        body = _get(client, url, template, **extra)
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("too many pages")


def _error(client: TestClient, url: str, status: int, names: str, method: str = "GET") -> None:
    r = client.request(method, url)
    assert r.status_code == status, r.text
    assert names in r.json()["message"], r.text


def test_get_block_by_number_and_hash(client: TestClient, chain: Chain) -> None:
    template = "/v1/chains/{chainId}/blocks/{blockId}"
    block = chain.blocks[7]
    by_number = _get(client, f"{BASE}/blocks/7", template)
    by_hash = _get(client, f"{BASE}/blocks/{block.hash}", template)
    assert by_number == by_hash
    assert by_number["blockHash"] == block.hash and by_number["parentHash"] == block.parent_hash
    assert by_number["txCount"] == block.tx_count
    assert by_number["cumulativeTransactions"] == str(sum(b.tx_count for b in chain.blocks[:8]))
    _error(client, f"{BASE}/blocks/999", 404, "blockId")
    _error(client, f"{BASE}/blocks/0x{'ab' * 32}", 404, "blockId")
    _error(client, f"{BASE}/blocks/seven", 400, "blockId")


def _listed(chain: Chain, tx: Any) -> list[Any]:
    return [
        c
        for c in chain.calls
        if (c.block_number, c.tx_index) == (tx.block_number, tx.tx_index)
        and is_listed_call(c.depth, c.call_type, c.value)
    ]


def _transfers(chain: Chain, tx: Any, standard: str) -> list[Any]:
    return [
        t
        for t in chain.transfers
        if (t.block_number, t.tx_index) == (tx.block_number, tx.tx_index)
        and str(t.standard) == standard
    ]


def test_get_transaction_in_full(client: TestClient, chain: Chain) -> None:
    template = "/v1/chains/{chainId}/transactions/{txHash}"
    # Block 21 (21 % 3 == 0, 21 % 5 == 1): ERC-20, ERC-721 and ERC-1155 transfers at once.
    for tx in [t for t in chain.txs if t.block_number in (21, 23, 9)]:
        body = _get(client, f"{BASE}/transactions/{tx.hash}", template)
        native = body["nativeTransaction"]
        assert native["txHash"] == tx.hash and native["blockIndex"] == tx.tx_index
        assert native["input"] == tx.input
        assert native["baseFeePerGas"] == str(chain.blocks[tx.block_number].base_fee)
        assert native.get("maxFeePerGas") == (
            None if tx.max_fee_per_gas is None else str(tx.max_fee_per_gas)
        )
        assert native["from"]["address"] == to_checksum_address(tx.from_address)
        for key, standard in (
            ("erc20Transfers", "ERC-20"),
            ("erc721Transfers", "ERC-721"),
            ("erc1155Transfers", "ERC-1155"),
        ):
            want = _transfers(chain, tx, standard)
            assert [t["logIndex"] for t in body[key]] == [t.log_index for t in want], key
        listed = _listed(chain, tx)
        assert [(i["to"]["address"].lower(), i["value"]) for i in body["internalTransactions"]] == [
            (c.to_address, str(c.value)) for c in listed
        ]
        assert body["networkTokenDetails"]["networkToken"]["symbol"] == "AVAX"
    _error(client, f"{BASE}/transactions/0x{'cd' * 32}", 404, "txHash")
    _error(client, f"{BASE}/transactions/0x1234", 400, "txHash")


def _of_address(chain: Chain, who: str) -> list[Any]:
    mine = [t for t in chain.txs if who in (t.from_address, t.to_address)]
    return sorted(mine, key=lambda t: (t.block_number, t.tx_index), reverse=True)


@pytest.mark.parametrize("who", [ALICE, BOB, ERC20])
def test_address_transactions_every_page(client: TestClient, chain: Chain, who: str) -> None:
    want = [t.hash for t in _of_address(chain, who)]
    native = _walk(
        client,
        f"{BASE}/addresses/{who}/transactions:listNative",
        "/v1/chains/{chainId}/addresses/{address}/transactions:listNative",
        "transactions",
        pageSize=7,
    )
    assert [t["txHash"] for t in native] == want
    template = "/v1/chains/{chainId}/addresses/{address}/transactions"
    detailed = _walk(
        client, f"{BASE}/addresses/{who}/transactions", template, "transactions", pageSize=6
    )
    assert [t["nativeTransaction"]["txHash"] for t in detailed] == want
    oldest = _walk(
        client,
        f"{BASE}/addresses/{who}/transactions",
        template,
        "transactions",
        pageSize=5,
        sortOrder="asc",
    )
    assert [t["nativeTransaction"]["txHash"] for t in oldest] == want[::-1]
    by_hash = {t.hash: t for t in chain.txs}
    for item in detailed:
        tx = by_hash[item["nativeTransaction"]["txHash"]]
        assert len(item["erc20Transfers"]) == len(_transfers(chain, tx, "ERC-20"))
        assert len(item["internalTransactions"]) == len(_listed(chain, tx))


def test_address_transactions_v2_filters_spam(client: TestClient, chain: Chain) -> None:
    url = f"/v2/chains/{CHAIN_ID}/addresses/{ALICE}/transactions"
    template = "/v2/chains/{chainId}/addresses/{address}/transactions"
    filtered = _walk(client, url, template, "transactions", pageSize=20)
    every = _walk(client, url, template, "transactions", pageSize=20, filterSpamTokens="false")
    tokens = {t["erc20Token"]["address"] for i in every for t in i["erc20Transfers"]}
    assert to_checksum_address(ERC20_NO_META) in tokens
    assert all(
        t["erc20Token"]["address"] != to_checksum_address(ERC20_NO_META)
        for i in filtered
        for t in i["erc20Transfers"]
    )
    assert all(
        t["erc20Token"]["tokenReputation"] is None for i in every for t in i["erc20Transfers"]
    )


def test_address_transactions_block_range_and_bad_input(client: TestClient, chain: Chain) -> None:
    want = [t.hash for t in _of_address(chain, ALICE) if 5 <= t.block_number < 15]
    got = _walk(
        client,
        f"{BASE}/addresses/{ALICE}/transactions:listNative",
        "/v1/chains/{chainId}/addresses/{address}/transactions:listNative",
        "transactions",
        startBlock=5,
        endBlock=15,
    )
    assert [t["txHash"] for t in got] == want
    _error(client, f"{BASE}/addresses/{ALICE}/transactions?sortOrder=up", 400, "sortOrder")
    _error(client, f"{BASE}/addresses/0x12/transactions", 400, "address")


def _native_at(chain: Chain, who: str, block: int) -> int:
    seen = [n for n in chain.natives if n.address == who and n.block_number <= block]
    return max(seen, key=lambda n: n.block_number).balance if seen else 0


def test_native_balance_at_head_and_at_a_block(client: TestClient, chain: Chain) -> None:
    template = "/v1/chains/{chainId}/addresses/{address}/balances:getNative"
    url = f"{BASE}/addresses/{BOB}/balances:getNative"
    head = len(chain.blocks) - 1
    assert _get(client, url, template)["nativeTokenBalance"]["balance"] == str(
        _native_at(chain, BOB, head)
    )
    at = _get(client, url, template, blockNumber="12")["nativeTokenBalance"]
    assert at["balance"] == str(_native_at(chain, BOB, 12)) and at["chainId"] == str(CHAIN_ID)
    _error(client, f"{url}?blockNumber=twelve", 400, "blockNumber")


def _erc1155_held(chain: Chain, who: str, block: int) -> dict[tuple[str, int], int]:
    held: dict[tuple[str, int], int] = defaultdict(int)
    for t in chain.transfers:
        if str(t.standard) != "ERC-1155" or t.block_number > block:
            continue
        if t.to_address == who:
            held[(t.token, t.token_id)] += t.value
        if t.from_address == who:
            held[(t.token, t.token_id)] -= t.value
    return {k: v for k, v in held.items() if v > 0}


def test_erc1155_and_collectible_balances(client: TestClient, chain: Chain) -> None:
    template = "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155"
    url = f"{BASE}/addresses/{CAROL}/balances:listErc1155"
    for block in (None, 11):
        params = {} if block is None else {"blockNumber": str(block)}
        got = _walk(client, url, template, "erc1155TokenBalances", pageSize=1, **params)
        want = _erc1155_held(chain, CAROL, len(chain.blocks) if block is None else block)
        assert {(b["address"].lower(), int(b["tokenId"])): int(b["balance"]) for b in got} == want
        assert want
    owners: dict[tuple[str, int], str] = {}
    for t in chain.transfers:
        if str(t.standard) == "ERC-721":
            owners[(t.token, t.token_id)] = t.to_address
    for who in (ALICE, BOB, CAROL):
        items = _walk(
            client,
            f"{BASE}/addresses/{who}/balances:listCollectibles",
            "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
            "collectibleBalances",
            pageSize=3,
        )
        want_721 = sorted(k for k, o in owners.items() if o == who)
        want_1155 = _erc1155_held(chain, who, len(chain.blocks))
        got = [(i["address"].lower(), int(i["tokenId"]), i["ercType"]) for i in items]
        want = [(a, i, "ERC-721") for a, i in want_721]
        want += [(a, i, "ERC-1155") for a, i in sorted(want_1155)]
        assert got == sorted(want), who


def test_contract_metadata_and_deployment(client: TestClient, chain: Chain) -> None:
    template = "/v1/chains/{chainId}/addresses/{address}"
    token = _get(client, f"{BASE}/addresses/{ERC20}", template)
    assert token == {
        "address": to_checksum_address(ERC20),
        "ercType": "ERC-20",
        "name": "Token",
        "symbol": "TKN",
        "decimals": 18,
    }
    nft = _get(client, f"{BASE}/addresses/{ERC721}", template)
    assert nft["ercType"] == "ERC-721" and nft["symbol"] == "COL"
    created = chain.contracts[0]
    found = _get(client, f"{BASE}/addresses/{created.address}", template)
    assert found["ercType"] == "UNKNOWN"
    assert found["deploymentDetails"] == {
        "txHash": created.tx_hash,
        "deployerAddress": to_checksum_address(created.deployer),
    }
    deployment = _get(
        client,
        f"{BASE}/contracts/{created.address}/transactions:getDeployment",
        "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
    )
    assert deployment["nativeTransaction"]["txHash"] == created.tx_hash
    assert deployment["nativeTransaction"]["input"] == "0x6080"
    _error(client, f"{BASE}/addresses/{CAROL}", 404, "address")
    _error(client, f"{BASE}/contracts/{CAROL}/transactions:getDeployment", 404, "address")


def test_token_details_and_reindex(client: TestClient, chain: Chain) -> None:
    template = "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}"
    t721 = next(t for t in chain.transfers if str(t.standard) == "ERC-721")
    body = _get(client, f"{BASE}/nfts/collections/{ERC721}/tokens/{t721.token_id}", template)
    assert body["ercType"] == "ERC-721" and body["tokenId"] == str(t721.token_id)
    assert body["name"] == "Collectible"
    big = 2**200
    body = _get(client, f"{BASE}/nfts/collections/{ERC1155}/tokens/{big}", template)
    assert body["ercType"] == "ERC-1155" and body["tokenId"] == str(big)
    _error(client, f"{BASE}/nfts/collections/{ERC721}/tokens/424242", 404, "tokenId")
    _error(client, f"{BASE}/nfts/collections/{ERC721}/tokens/x1", 400, "tokenId")
    # 78 digits fit the documented pattern; no token can have an id at or above 2**256.
    _error(client, f"{BASE}/nfts/collections/{ERC721}/tokens/{2**256}", 404, "tokenId")
    url = f"{BASE}/nfts/collections/{ERC721}/tokens/{t721.token_id}:reindex"
    assert client.post(url).status_code == 201
    again = _get(client, f"{BASE}/nfts/collections/{ERC721}/tokens/{t721.token_id}", template)
    assert again["metadata"]["indexStatus"] == "UNINDEXED"
    _error(
        client, f"{BASE}/nfts/collections/{ERC721}/tokens/424242:reindex", 404, "tokenId", "POST"
    )


def test_address_chains_under_both_paths(client: TestClient) -> None:
    for url in (f"/v1/address/{ALICE}/chains", f"/v1/chains/address/{ALICE}"):
        body = _get(client, url, "/v1/address/{address}/chains")
        assert [c["chainId"] for c in body["indexedChains"]] == [str(CHAIN_ID)]
        assert body["indexedChains"][0]["platformChainId"] == BLOCKCHAIN_ID
    nobody = _get(client, f"/v1/address/0x{'99' * 20}/chains", "/v1/address/{address}/chains")
    assert nobody["indexedChains"] == []
    _error(client, "/v1/address/nope/chains", 400, "address")


def test_latest_across_chains_under_both_paths(client: TestClient, chain: Chain) -> None:
    want_txs = [t.hash for t in sorted(chain.txs, key=lambda t: (t.block_number, t.tx_index))]
    for url in ("/v1/transactions", "/v1/chains/allTransactions"):
        got = _walk(client, url, "/v1/transactions", "transactions", pageSize=4)
        assert [t["txHash"] for t in got] == want_txs[::-1]
    failed = _walk(client, "/v1/transactions", "/v1/transactions", "transactions", status="failed")
    assert [t["txHash"] for t in failed] == [
        t.hash
        for t in sorted(chain.txs, key=lambda t: (t.block_number, t.tx_index), reverse=True)
        if not t.success
    ]
    for url in ("/v1/blocks", "/v1/chains/allBlocks"):
        got = _walk(client, url, "/v1/blocks", "blocks", pageSize=7)
        assert [int(b["blockNumber"]) for b in got] == list(range(len(chain.blocks)))[::-1]
    assert _get(client, "/v1/blocks", "/v1/blocks", network="mainnet")["blocks"] == []
    _error(client, "/v1/blocks?network=moon", 400, "network")


def test_health_and_liveness(client: TestClient, chain: Chain) -> None:
    for prefix in ("/v1", "/v2"):
        # Not closed: the reference lets a health indicator carry more than its status
        # (`"additionalProperties": true`), where ours says which block and how far behind.
        health = _get(client, f"{prefix}/health-check", "/v1/health-check", strict=False)
        assert health["status"] == "ok" and health["info"]["database"] == {"status": "up"}
        mine = health["details"][f"chain:{CHAIN_ID}"]
        assert mine["lastIndexedBlock"] == len(chain.blocks) - 1
        assert mine["lagSeconds"] >= 0
        assert _get(client, f"{prefix}/live-check", "/v1/live-check")["status"] == "ok"
