"""The Operations API: transaction exports (POST /v1/operations/transactions:export) and their
status (GET /v1/operations/{operationId}); the worker writing the files is exports/'s."""
