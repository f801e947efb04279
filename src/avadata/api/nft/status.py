"""The worker's stored status codes (nft_tokens.index_status holds at most 16 characters) and
the reference's NftTokenMetadataStatus each one is served as.

Stage: api. `pending` rows and the retryable failures are picked up again by the worker.
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

SERVED: Final[dict[str, str]] = {
    PENDING: "UNINDEXED",
    INDEXED: "INDEXED",
    MISSING_TOKEN: "MISSING_TOKEN",
    BAD_URI: "INVALID_TOKEN_URI",
    BAD_SCHEME: "INVALID_TOKEN_URI_SCHEME",
    UNREACHABLE: "UNREACHABLE_TOKEN_URI",
    THROTTLED: "THROTTLED_TOKEN_URI",
    TOO_LARGE: "METADATA_CONTENT_TOO_LARGE",
    BAD_METADATA: "INVALID_METADATA",
    BAD_JSON: "INVALID_METADATA_JSON",
}
