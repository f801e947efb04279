"""What the primary-network stages speak to each other (records.py), as avadata.records does for
the EVM chains: decode/primary produces it, indexer/primary completes it from the node,
store/primary turns it into rows."""
