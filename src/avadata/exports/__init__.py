"""Transaction exports: the files behind POST /v1/operations/transactions:export, written by a
worker `avadata serve` hosts (docs/compatibility.md, "Transaction exports")."""
