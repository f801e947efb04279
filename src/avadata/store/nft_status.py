"""The NFT metadata worker's status codes, as nft_tokens.index_status stores them (at most 16
characters).

Stage: store: the vocabulary of a column, shared by the worker that writes it
(indexer/nft/worker.py) and the API that serves it (api/data/shapes.py maps each code to the
reference's NftTokenMetadataStatus). `pending` rows and the retryable failures are picked up
again by the worker.
"""

from __future__ import annotations

from typing import Final

PENDING: Final = "pending"
INDEXED: Final = "indexed"
MISSING_TOKEN: Final = "missing_token"  # tokenURI/uri reverted: burnt or never minted
BAD_URI: Final = "bad_uri"
BAD_SCHEME: Final = "bad_scheme"
UNREACHABLE: Final = "unreachable"
THROTTLED: Final = "throttled"
TOO_LARGE: Final = "too_large"
BAD_METADATA: Final = "bad_metadata"
BAD_JSON: Final = "bad_json"

# Failures worth another attempt later (with backoff); the others are final.
RETRYABLE: Final = frozenset({PENDING, UNREACHABLE, THROTTLED})
