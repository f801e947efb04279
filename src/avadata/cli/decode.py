"""`avadata decode ...`: the Avalanche binary codec for people and scripts.

JSON on stdout and exit 0; bad input gives one line on stderr (byte offset and what was
expected there) and exit 1, never a traceback. HEX may carry `0x` and the node APIs'
4-byte checksum.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any

import typer

app = typer.Typer(
    help="Decode Avalanche transactions, blocks and UTXOs to JSON.", no_args_is_help=True
)


class Chain(StrEnum):
    p = "p"
    x = "x"
    c = "c"


ChainOpt = Annotated[Chain, typer.Option("--chain", "-c", help="p, x or c", case_sensitive=False)]
HexArg = Annotated[str, typer.Argument(help="hex bytes, 0x optional, API checksum optional")]
NetworkOpt = Annotated[
    int | None,
    typer.Option("--network-id", help="network ID for address HRPs (default: from the tx)"),
]


def _run(text: str, decode: Callable[[bytes], dict[str, Any]]) -> None:
    from avadata.decode.codec.ids import parse_hex, strip_checksum
    from avadata.decode.codec.reader import DecodeError

    try:
        raw = parse_hex(text)
        try:
            out = decode(raw)
        except DecodeError:
            payload = strip_checksum(raw)
            if payload is None:
                raise
            out = decode(payload)  # the node's "hex" encoding appends a checksum
    except DecodeError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    except Exception as e:  # a bug of ours must still be one line, not a traceback
        typer.echo(f"error: {type(e).__name__}: {e}", err=True)
        raise typer.Exit(1) from None
    sys.stdout.write(json.dumps(out, indent=2) + "\n")


def _tx(chain: Chain, network_id: int | None) -> Callable[[bytes], dict[str, Any]]:
    from avadata.decode.codec import api, render

    decoders: dict[Chain, Callable[[bytes], Any]] = {
        Chain.p: api.decode_p_tx,
        Chain.x: api.decode_x_tx,
        Chain.c: api.decode_atomic_tx,
    }
    return lambda raw: render.tx_json(decoders[chain](raw), chain.value.upper(), network_id)


def _unsigned(chain: Chain, network_id: int | None) -> Callable[[bytes], dict[str, Any]]:
    from avadata.decode.codec import api, render

    decoders: dict[Chain, Callable[[bytes], Any]] = {
        Chain.p: api.decode_p_unsigned_tx,
        Chain.x: api.decode_x_unsigned_tx,
        Chain.c: api.decode_atomic_unsigned_tx,
    }
    return lambda raw: render.unsigned_json(decoders[chain](raw), chain.value.upper(), network_id)


@app.command("tx")
def tx(hex_bytes: HexArg, chain: ChainOpt = Chain.p, network_id: NetworkOpt = None) -> None:
    """Decode a signed transaction (its ID is `txHash`)."""
    _run(hex_bytes, _tx(chain, network_id))


@app.command("unsigned-tx")
def unsigned_tx(
    hex_bytes: HexArg, chain: ChainOpt = Chain.p, network_id: NetworkOpt = None
) -> None:
    """Decode an unsigned transaction (codec version + type ID + fields)."""
    _run(hex_bytes, _unsigned(chain, network_id))


@app.command("block")
def block(hex_bytes: HexArg, chain: ChainOpt = Chain.p, network_id: NetworkOpt = None) -> None:
    """Decode a block: proposervm wrapper or bare block (its ID is `blockId`)."""
    from avadata.decode.codec.containers import container_json, decode_container

    _run(
        hex_bytes,
        lambda raw: container_json(decode_container(chain.value, raw), network_id),
    )


@app.command("utxo")
def utxo(
    hex_bytes: HexArg,
    chain: Annotated[Chain, typer.Option("--chain", "-c", case_sensitive=False)] = Chain.p,
    network_id: Annotated[int, typer.Option("--network-id")] = 1,
) -> None:
    """Decode a UTXO (as platform.getUTXOs / avm.getUTXOs return them)."""
    from avadata.decode.codec import api, render
    from avadata.decode.codec.xchain import XCHAIN_TABLE

    table = XCHAIN_TABLE if chain is Chain.x else None
    _run(
        hex_bytes,
        lambda raw: render.utxo_json(api.decode_utxo(raw, table), chain.value.upper(), network_id),
    )
