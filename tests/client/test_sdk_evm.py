"""The official TypeScript SDK (@avalanche-sdk/chainkit 0.3.13) against our running server:
every EVM endpoint, every page; every response must parse with the SDK's schemas."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from avadata.api.app import create_app
from avadata.settings import Settings
from tests.api.synthetic import ALICE, CHAIN_ID, ERC20, ERC721, ERC1155, write_store

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"
SCRIPT = Path(__file__).with_name("evm_endpoints.mjs")

pytestmark = [
    pytest.mark.client,
    pytest.mark.skipif(
        shutil.which("node") is None
        or not (TOOLS / "node_modules/@avalanche-sdk/chainkit").is_dir(),
        reason="node or tools/node_modules/@avalanche-sdk/chainkit missing (scripts/setup.sh)",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    url, chain = write_store(tmp_path_factory.mktemp("sdk") / "store.db")
    prices = tmp_path_factory.mktemp("prices") / "prices.json"
    prices.write_text(
        json.dumps({str(CHAIN_ID): {"native": {"usd": 20.5, "eur": 19.0}, ERC20: {"eur": 1.25}}})
    )
    settings = Settings(db_url=url, page_token_secret="sdk-test-secret-0123", prices_file=prices)
    port = _free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", chain
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def test_every_evm_endpoint_parses_in_the_sdk(server: tuple[str, object]) -> None:
    base, chain = server
    block = chain.blocks[7]  # type: ignore[attr-defined]
    args = {
        "toolsDir": str(TOOLS),
        "chainId": str(CHAIN_ID),
        "address": ALICE,
        "token20": ERC20,
        "token721": ERC721,
        "token1155": ERC1155,
        "blockId": "7",
        "blockHash": block.hash,
    }
    proc = subprocess.run(
        ["node", str(SCRIPT), base, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, proc.stdout + proc.stderr
    result = json.loads(lines[-1])
    assert proc.returncode == 0 and result["ok"], json.dumps(result, indent=1) + proc.stderr
    summary = result["summary"]
    # Paged routes really were followed across several pages.
    assert summary["blocks.listLatest"]["pages"] == 10
    assert summary["blocks.listLatest"]["items"] == 30
    assert summary["address.transactions.listErc20"]["pages"] > 1
    assert summary["nfts.list(721)"]["pages"] > 1
    assert summary["unknown chain"]["error"] == "NotFoundError"
    assert summary["unknown api key"]["error"] == "UnauthorizedError"
