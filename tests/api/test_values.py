"""Values served against an independent computation from the records the store was fed.

The synthetic chain (tests/api/synthetic.py) keeps every record it wrote; each test derives
the expected answer from those records in plain Python, not from the store.
"""

from __future__ import annotations

from eth_utils.address import to_checksum_address

from tests.api.http import TestClient
from tests.api.routes import A, C
from tests.api.synthetic import (
    ALICE,
    CHAIN_ID,
    ERC20,
    ERC721,
    ERC1155,
    ZERO,
    Chain,
)
from tests.api.test_paging import walk


def test_blocks(client: TestClient, chain: Chain) -> None:
    served = walk(client, f"{C}/blocks", "blocks", 7)
    expected = sorted(chain.blocks, key=lambda b: -b.number)
    assert [b["blockNumber"] for b in served] == [str(b.number) for b in expected]
    cumulative = 0
    by_number = {b["blockNumber"]: b for b in served}
    for blk in chain.blocks:  # ascending: cumulative counts this block and every earlier one
        cumulative += blk.tx_count
        got = by_number[str(blk.number)]
        assert got == {
            "chainId": str(CHAIN_ID),
            "blockNumber": str(blk.number),
            "blockTimestamp": blk.timestamp,
            "blockHash": blk.hash,
            "txCount": blk.tx_count,
            "baseFee": str(blk.base_fee),
            "gasUsed": str(blk.gas_used),
            "gasLimit": str(blk.gas_limit),
            "gasCost": str((blk.base_fee or 0) * blk.gas_used),
            "parentHash": blk.parent_hash,
            "feesSpent": str(blk.fees_spent),
            "cumulativeTransactions": str(cumulative),
        }


def test_block_transactions_by_number_and_hash(client: TestClient, chain: Chain) -> None:
    blk = chain.blocks[7]
    by_number = client.get(f"{C}/blocks/7/transactions").json()["transactions"]
    by_hash = client.get(f"{C}/blocks/{blk.hash.upper().replace('0X', '0x')}/transactions").json()
    assert by_number == by_hash["transactions"]
    txs = [t for t in chain.txs if t.block_number == 7]
    assert [t["txHash"] for t in by_number] == [t.hash for t in txs]
    first, rec = by_number[0], txs[0]
    assert first["from"] == {"address": to_checksum_address(rec.from_address)}
    assert first["txStatus"] == ("1" if rec.success else "0")
    assert first["value"] == str(rec.value) and first["nonce"] == str(rec.nonce)
    assert first["method"] == {
        "callType": "CONTRACT_CALL",
        "methodHash": "0xa9059cbb",
        "methodName": "transfer(address,uint256)",
    }


def test_latest_transactions_by_status(client: TestClient, chain: Chain) -> None:
    for status, ok in (("success", True), ("failed", False)):
        served = walk(client, f"{C}/transactions", "transactions", 4, status=status)
        expected = sorted(
            (t for t in chain.txs if t.success is ok), key=lambda t: (-t.block_number, -t.tx_index)
        )
        assert [t["txHash"] for t in served] == [t.hash for t in expected]
    everything = walk(client, f"{C}/transactions", "transactions", 9)
    assert len(everything) == len(chain.txs)


def _transfers_of(chain: Chain, who: str, standard: str) -> list:
    rows = [
        t
        for t in chain.transfers
        if str(t.standard) == standard and who in (t.from_address, t.to_address)
    ]
    return sorted(rows, key=lambda t: (-t.block_number, -t.log_index, -t.batch_index))


def test_erc_transfer_lists(client: TestClient, chain: Chain) -> None:
    for suffix, standard, key in (
        ("listErc20", "ERC-20", "erc20Token"),
        ("listErc721", "ERC-721", "erc721Token"),
        ("listErc1155", "ERC-1155", "erc1155Token"),
    ):
        served = walk(client, f"{A}/transactions:{suffix}", "transactions", 5)
        expected = _transfers_of(chain, ALICE, standard)
        assert len(served) == len(expected), suffix
        for got, rec in zip(served, expected, strict=True):
            assert got["txHash"] == rec.tx_hash and got["logIndex"] == rec.log_index
            assert got["from"]["address"] == to_checksum_address(rec.from_address)
            assert got["to"]["address"] == to_checksum_address(rec.to_address)
            assert got[key]["address"] == to_checksum_address(rec.token)
            if standard != "ERC-721":
                assert got["value"] == str(rec.value)
            else:
                assert "value" not in got
            if standard != "ERC-20":
                assert got[key]["tokenId"] == str(rec.token_id)


def test_block_range_rules(client: TestClient, chain: Chain) -> None:
    path = f"{A}/transactions:listErc20"
    everything = _transfers_of(chain, ALICE, "ERC-20")
    cases = [
        ({"startBlock": 4, "endBlock": 9}, lambda n: 4 <= n < 9),
        ({"startBlock": 20}, lambda n: n >= 20),
        ({"endBlock": 6}, lambda n: n < 6),
        ({"startBlock": 6, "endBlock": 6}, lambda n: False),
    ]
    for params, keep in cases:
        served = walk(client, path, "transactions", 3, **params)
        expected = [t.tx_hash for t in everything if keep(t.block_number)]
        assert [t["txHash"] for t in served] == expected, params


def test_token_transfers_mixed_standards(client: TestClient, chain: Chain) -> None:
    for token, key in ((ERC20, "erc20Token"), (ERC721, "erc721Token"), (ERC1155, "erc1155Token")):
        served = walk(client, f"{C}/tokens/{token}/transfers", "transfers", 10)
        expected = sorted(
            (t for t in chain.transfers if t.token == token),
            key=lambda t: (-t.block_number, -t.log_index, -t.batch_index),
        )
        assert [(t["txHash"], t["logIndex"]) for t in served] == [
            (t.tx_hash, t.log_index) for t in expected
        ]
        assert all(key in t for t in served)


def test_internals(client: TestClient, chain: Chain) -> None:
    served = walk(client, f"{A}/transactions:listInternals", "transactions", 4)
    listed = [
        c
        for c in chain.calls
        if c.depth > 0
        and ALICE in (c.from_address, c.to_address)
        and ((c.call_type in ("CALL", "CALLCODE") and c.value) or c.call_type.startswith("CREATE"))
    ]
    listed.sort(key=lambda c: (-c.block_number, -c.tx_index, -c.trace_index))
    assert [(t["txHash"], t["value"], t["isReverted"]) for t in served] == [
        (c.tx_hash, str(c.value), c.reverted) for c in listed
    ]
    assert any(t["isReverted"] for t in served)
    assert {t["internalTxType"] for t in served} <= {"CALL", "CREATE2"}


def _erc20_balance(chain: Chain, token: str, who: str, block: int) -> int:
    total = 0
    for t in chain.transfers:
        if t.token == token and t.block_number <= block:
            total += t.value if t.to_address == who else 0
            total -= t.value if t.from_address == who else 0
    return total


def test_erc20_balances_at_blocks(client: TestClient, chain: Chain) -> None:
    for block in (1, 2, 10, 29, None):
        params = {} if block is None else {"blockNumber": str(block)}
        body = client.get(f"{A}/balances:listErc20", params=params).json()
        at = 29 if block is None else block
        balances = {b["address"]: b for b in body["erc20TokenBalances"]}
        want = _erc20_balance(chain, ERC20, ALICE, at)
        assert balances[to_checksum_address(ERC20)]["balance"] == str(want), block
        assert balances[to_checksum_address(ERC20)]["tokenReputation"] is None
        assert "price" not in balances[to_checksum_address(ERC20)]
        native = [n.balance for n in chain.natives if n.address == ALICE and n.block_number <= at]
        assert body["nativeTokenBalance"]["balance"] == str(native[-1])
        assert "price" not in body["nativeTokenBalance"]


def test_spam_filter_and_contract_filter(client: TestClient) -> None:
    path = f"{A}/balances:listErc20"
    hidden = client.get(path).json()["erc20TokenBalances"]
    shown = client.get(path, params={"filterSpamTokens": "false"}).json()["erc20TokenBalances"]
    assert len(shown) == len(hidden) + 1
    only = client.get(path, params={"contractAddresses": f"{ERC20.upper()[2:]}"})
    assert only.status_code == 400
    one = client.get(path, params={"contractAddresses": f"0x{'99' * 20},{ERC20}"}).json()
    assert [b["address"] for b in one["erc20TokenBalances"]] == [to_checksum_address(ERC20)]


def test_erc721_balances_and_collection(client: TestClient, chain: Chain) -> None:
    owners: dict[int, str] = {}
    for t in sorted(chain.transfers, key=lambda t: (t.block_number, t.log_index)):
        if t.token == ERC721 and t.token_id is not None:
            owners[t.token_id] = t.to_address
    served = walk(client, f"{A}/balances:listErc721", "erc721TokenBalances", 3)
    mine = sorted(i for i, o in owners.items() if o == ALICE)
    assert [int(b["tokenId"]) for b in served] == mine
    tokens = walk(client, f"{C}/nfts/collections/{ERC721}/tokens", "tokens", 4)
    assert [int(t["tokenId"]) for t in tokens] == sorted(owners)
    for t in tokens:
        assert t["ownerAddress"] == to_checksum_address(owners[int(t["tokenId"])])
        assert t["metadata"]["indexStatus"] in ("UNINDEXED", "INDEXED")
    semi = client.get(f"{C}/nfts/collections/{ERC1155}/tokens").json()["tokens"]
    assert {t["ercType"] for t in semi} == {"ERC-1155"} and len(semi) == 2
    assert all("ownerAddress" not in t for t in semi)


def test_deployments(client: TestClient, chain: Chain) -> None:
    served = walk(client, f"{C}/contracts/{ALICE}/deployments", "contracts", 2)
    expected = sorted(
        (c for c in chain.contracts if c.deployer == ALICE),
        key=lambda c: (-c.block_number, -c.tx_index, -c.trace_index),
    )
    assert [c["address"] for c in served] == [to_checksum_address(c.address) for c in expected]
    for c in served:
        assert c["ercType"] == "UNKNOWN"
        assert c["deploymentDetails"]["deployerAddress"] == to_checksum_address(ALICE)


def test_chains_listing(client: TestClient) -> None:
    chains = client.get("/v1/chains").json()["chains"]
    assert [c["chainId"] for c in chains] == [str(CHAIN_ID)]
    assert client.get("/v1/chains", params={"network": "mainnet"}).json() == {"chains": []}
    assert client.get("/v1/chains", params={"network": "fuji"}).json()["chains"] == chains
    assert client.get(f"{C}").json() == chains[0]


def test_zero_is_not_an_owner(chain: Chain) -> None:
    assert ZERO == "0x" + "00" * 20
