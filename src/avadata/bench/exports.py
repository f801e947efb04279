"""`avadata bench export`: a whole chain's transactions exported to one file, as a client asks.

Stage: bench. The store is `avadata bench api`'s synthetic chain (api_store.py; built when
missing). The export is asked through the API (POST /v1/operations/transactions:export, an
API key's), then the export worker writes it in this thread, timed from its first batch to the
completed file; the file's rows are counted against the store's. The issue's target: 1M
transactions to CSV in under 60 s.
"""

from __future__ import annotations

import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from avadata.bench import api_store
from avadata.bench.api_load import ensure_store


@dataclass(frozen=True, slots=True)
class Result:
    fmt: str
    txs: int
    rows: int
    seconds: float
    file_bytes: int
    peak_rss_mb: float


def run(db: str | None, txs: int, fmt: str) -> Result:
    from fastapi.testclient import TestClient

    from avadata.api.app import create_app
    from avadata.exports import files
    from avadata.exports.worker import ExportWorker
    from avadata.settings import Settings
    from avadata.store.engine import make_engine, make_reader_engine
    from avadata.store.keys import create_key

    url, count, _ = ensure_store(db, txs)
    out = Path(tempfile.mkdtemp(prefix="avadata-bench-export-"))
    settings = Settings(db_url=url, data_dir=out)
    writer = make_engine(url)
    key, _ = create_key(writer, "bench-export", None)
    body = {
        "type": "TRANSACTION_EXPORT_EVM",
        "format": fmt,
        "options": {"addresses": [], "includeChains": [str(api_store.CHAIN_ID)]},
    }
    with TestClient(create_app(settings)) as client:
        answer = client.post(
            "/v1/operations/transactions:export", json=body, headers={"x-glacier-api-key": key}
        )
        answer.raise_for_status()
        operation_id = answer.json()["operationId"]
        worker = ExportWorker(make_reader_engine(url), writer, settings)
        start = time.perf_counter()
        worker.run(operation_id)
        seconds = time.perf_counter() - start
        done = client.get(
            f"/v1/operations/{operation_id}", headers={"x-glacier-api-key": key}
        ).json()
    writer.dispose()
    path = files.final_path(files.exports_dir(settings), operation_id, fmt)
    rows = done["metadata"]["rowsWritten"]
    if done["operationStatus"] != "COMPLETED" or rows != count:
        raise SystemExit(f"the export wrote {rows} of {count} rows: {done}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return Result(fmt, count, rows, seconds, path.stat().st_size, peak)


def report(result: Result, machine: str, command: str) -> str:
    rate = result.rows / result.seconds if result.seconds else 0.0
    return "\n".join(
        [
            "| format | transactions | seconds | rows/s | file MB | process peak RSS MB ¹ |",
            "|---|---:|---:|---:|---:|---:|",
            f"| {result.fmt} | {result.rows:,} | {result.seconds:.1f} | {rate:,.0f} | "
            f"{result.file_bytes / 1e6:.0f} | {result.peak_rss_mb:.0f} |",
            "",
            "¹ of the whole process: with a store built in the same run, the build's peak too.",
            "",
            f"Machine: {machine}",
            "",
            f"Command: `{command}`",
        ]
    )
