"""The spec's OperationStatusResponse of an export operation.

Stage: api. Pure. `metadata` is the spec's TransactionExportMetadata (`code`, and `downloadUrl`
once COMPLETED) plus ours: `format`, `rowsWritten` and `progressPercent` (an estimate from the
position in the plan's range; 100 when complete).
"""

from __future__ import annotations

from typing import Any

from avadata.exports.plan import Plan, Position, progress
from avadata.store.exports.jobs import COMPLETED, Operation


def operation_body(op: Operation, download_url: str) -> dict[str, Any]:
    plan = Plan.from_json(op.plan)
    done = op.status == COMPLETED
    metadata: dict[str, Any] = {
        "format": plan.format,
        "rowsWritten": op.rows_written,
        "progressPercent": round(100 * progress(plan, Position.from_json(op.position), done), 1),
    }
    if op.code is not None:
        metadata["code"] = op.code
    if done:
        metadata["downloadUrl"] = download_url
    body: dict[str, Any] = {
        "operationId": op.operation_id,
        "operationType": op.operation_type,
        "operationStatus": op.status,
        "metadata": metadata,
        "createdAtTimestamp": op.created_at_ms,
        "updatedAtTimestamp": op.updated_at_ms,
    }
    if op.message:
        body["message"] = op.message
    return body
