"""The NFT metadata worker: token URIs read by eth_call, metadata resolved in the background."""
