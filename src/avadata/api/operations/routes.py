"""POST /v1/operations/transactions:export, GET /v1/operations/{operationId}, and the file's
download (ours: GET /v1/operations/{operationId}/file, the `downloadUrl` of a completed one).

Stage: api. An operation belongs to the API key that created it (webhooks/access.owner):
another key's answers 404, exactly as a missing one, so ids cannot be probed; its file too.
The export itself runs in the worker `avadata serve` hosts (exports/worker.py).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Request
from fastapi.responses import FileResponse

from avadata.api.deps import State
from avadata.api.errors import ERROR_RESPONSES, not_found
from avadata.api.operations import plans
from avadata.api.operations import requests as rq
from avadata.api.operations.shapes import operation_body
from avadata.api.primary.openapi import ok
from avadata.api.webhooks.access import owner
from avadata.exports import files
from avadata.exports.plan import Plan, Position
from avadata.store.exports import jobs

router = APIRouter(tags=["Operations"], responses=ERROR_RESPONSES)

_WHAT = "export operations"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
OperationIdPath = Annotated[
    str,
    Path(
        alias="operationId",
        pattern=UUID_PATTERN,
        description="UUID of given operation",
        examples=["aa22054a-cb7c-4a4e-9b83-59f2ede74138"],
    ),
]
AnyBody = Annotated[Any, Body()]


def _download_url(request: Request, operation_id: str) -> str:
    return str(request.url_for("getOperationFile", operationId=operation_id))


def _own(request: Request, st: State, operation_id: str) -> jobs.Operation:
    op = jobs.get(st.engine, owner(request, _WHAT), operation_id.lower())
    if op is None:
        raise not_found(f"operationId: no operation {operation_id!r} of this API key")
    return op


@router.post(
    "/v1/operations/transactions:export",
    status_code=201,
    operation_id="postTransactionExportJob",
    responses=ok("OperationStatusResponse", status=201),
    response_model=None,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": rq.BODY_SCHEMA}},
        }
    },
)
def export_transactions(request: Request, st: State, body: AnyBody = None) -> dict[str, Any]:
    """Start an export of transactions to a CSV (or, with `"format": "parquet"`, Parquet) file;
    its status and, once complete, its download URL: GET /v1/operations/{operationId}."""
    who = owner(request, _WHAT)
    req = rq.parse_export(body)
    plan = plans.evm_plan(st, req) if isinstance(req, rq.EvmExport) else plans.primary_plan(st, req)
    operation_id = str(uuid.uuid4())
    writer = st.writer.engine(st.settings.db_url)
    op = jobs.create(writer, who, operation_id, req.type, plan.to_json(), Position().to_json())
    return operation_body(op, _download_url(request, operation_id))


@router.get(
    "/v1/operations/{operationId}",
    operation_id="getOperationResult",
    responses=ok("OperationStatusResponse"),
    response_model=None,
)
def get_operation(request: Request, st: State, operation_id: OperationIdPath) -> dict[str, Any]:
    op = _own(request, st, operation_id)
    return operation_body(op, _download_url(request, op.operation_id))


@router.get(
    "/v1/operations/{operationId}/file",
    operation_id="getOperationFile",
    name="getOperationFile",
    response_class=FileResponse,
    responses={200: {"description": "The export's file (text/csv or Parquet)"}},
)
def get_operation_file(request: Request, st: State, operation_id: OperationIdPath) -> FileResponse:
    """avadata's own: the file of a completed export (the `downloadUrl` of its operation)."""
    op = _own(request, st, operation_id)
    if op.status != jobs.COMPLETED:
        raise not_found(f"operationId: operation {operation_id!r} has no file ({op.status})")
    fmt = Plan.from_json(op.plan).format
    path = files.final_path(files.exports_dir(st.settings), op.operation_id, fmt)
    if not path.is_file():
        raise not_found(f"operationId: the file of operation {operation_id!r} is gone")
    return FileResponse(
        path, media_type=files.MEDIA_TYPES[fmt], filename=f"transactions-{op.operation_id}.{fmt}"
    )
