"""`avadata serve` killed (SIGKILL) in the middle of two exports and started again: both
complete, and each file holds every transaction of the export exactly once, in chain order,
as a direct read of the store written here selects them (CSV; Parquet read back with pyarrow)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
from sqlalchemy import or_, select

from avadata.bench import api_store
from avadata.store.engine import make_engine
from avadata.store.exports import jobs
from avadata.store.keys import create_key
from avadata.store.migrate import migrate
from avadata.store.schema import evm_txs
from tests.exports import truth
from tests.support.server import free_port

TXS = 6_000
OTHER = api_store.account(7)


@contextmanager
def _serve(db: str, data_dir: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        # Small batches, each marked: the export takes hundreds of marks, so a kill lands
        # between two of them, and rows written after the last mark must not reappear.
        "AVADATA_EXPORT_BATCH_ROWS": "50",
        "AVADATA_EXPORT_CHECKPOINT_S": "0",
        "AVADATA_EXPORT_POLL_S": "0.05",
    }
    args = ["serve", "--db", db, "--port", str(port), "--data-dir", str(data_dir)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "avadata", *args, "--no-nft-worker"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "serve did not come up"
                time.sleep(0.1)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=20)


def _status(base: str, key: str, op: str) -> dict[str, Any]:
    r = httpx.get(f"{base}/v1/operations/{op}", headers={"x-glacier-api-key": key}, timeout=10)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _wait(base: str, key: str, op: str, done: Any, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body = _status(base, key, op)
        if done(body):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.01)


def _status_in_store(engine: Any, op: str) -> str:
    found = jobs.get(engine, None, op)
    assert found is not None
    return found.status


def test_a_killed_server_resumes_its_exports_exactly(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'big.db'}"
    engine = make_engine(db)
    migrate(engine)
    api_store.build(engine, TXS)
    key, _ = create_key(engine, "exports", None)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    headers = {"x-glacier-api-key": key}
    chain = str(api_store.CHAIN_ID)
    bodies = [
        {"type": "TRANSACTION_EXPORT_EVM", "options": {"addresses": [], "includeChains": [chain]}},
        {
            "type": "TRANSACTION_EXPORT_EVM",
            "format": "parquet",
            "options": {"addresses": [api_store.HOT, OTHER], "includeChains": [chain]},
        },
    ]
    with _serve(db, tmp_path, port) as proc:
        ops = []
        for body in bodies:
            r = httpx.post(f"{base}/v1/operations/transactions:export", json=body, headers=headers)
            assert r.status_code == 201, r.text
            ops.append(r.json()["operationId"])
        midway = _wait(base, key, ops[0], lambda b: b["metadata"]["rowsWritten"] >= 500)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert midway["operationStatus"] == "RUNNING" and midway["metadata"]["rowsWritten"] < TXS
    assert 0 < midway["metadata"]["progressPercent"] < 100
    assert (tmp_path / "exports" / f"{ops[0]}.csv.partial").exists()
    # Again, in the middle of the second (Parquet) export this time.
    with _serve(db, tmp_path, port) as proc:
        midway = _wait(base, key, ops[1], lambda b: b["metadata"]["rowsWritten"] >= 200)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert midway["operationStatus"] == "RUNNING"
    assert _status_in_store(engine, ops[0]) == "COMPLETED"
    with _serve(db, tmp_path, port):
        finals = [_wait(base, key, op, lambda b: b["operationStatus"] != "RUNNING") for op in ops]
        files = [httpx.get(f["metadata"]["downloadUrl"], headers=headers) for f in finals]
    assert [f["operationStatus"] for f in finals] == ["COMPLETED", "COMPLETED"], finals
    t = evm_txs.c
    with engine.connect() as conn:
        every = conn.execute(select(evm_txs).order_by(t.block_number, t.tx_index)).all()
        pair = conn.execute(
            select(evm_txs)
            .where(
                or_(
                    t.from_address.in_([api_store.HOT, OTHER]),
                    t.to_address.in_([api_store.HOT, OTHER]),
                )
            )
            .order_by(t.block_number, t.tx_index)
        ).all()
    engine.dispose()
    assert len(every) == TXS and 1000 < len(pair) < TXS
    assert finals[0]["metadata"]["rowsWritten"] == TXS
    rows = truth.csv_rows(files[0].text)
    assert rows == [truth.HEADER, *truth.as_csv([truth.evm_row(r) for r in every])]  # type: ignore[arg-type]
    table = pq.read_table(io.BytesIO(files[1].content))
    assert finals[1]["metadata"]["rowsWritten"] == len(pair)
    assert table.to_pylist() == truth.as_parquet([truth.evm_row(r) for r in pair])  # type: ignore[arg-type]
    assert sorted(p.name for p in (tmp_path / "exports").iterdir()) == sorted(
        [f"{ops[0]}.csv", f"{ops[1]}.parquet"]
    )
