"""The Avalanche binary codec, both directions (see docs/codec.md).

Entry points live in `api` (decode_*/encode_* per chain), `containers` (Index API
containers), `render` (JSON) and `cblock`/`proposervm`/`warp`; every decoder raises only
`reader.DecodeError`, which carries the byte offset.
"""
