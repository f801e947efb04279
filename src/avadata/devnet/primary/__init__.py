"""The devnet's simulated primary network: the P-, X- and C-chain atomic simulators, their
state, and the node that accepts and indexes their containers."""
