"""The devnet's EVM chains: anvil processes, contract deployment and seeded traffic."""
