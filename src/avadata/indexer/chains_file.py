"""The operator's chains file (`avadata index --chains FILE`): what no node says about a chain.

Indexer stage (pure: text in, identities out). TOML:

    network = "fuji"              # optional: the network of every chain that names none

    [[chains]]
    chain_id = 99901              # the EVM chain ID: the key (required)
    network = "local"             # a name (mainnet, fuji, testnet, local), network-<id>, or an ID
    blockchain_id = "2X..."       # CB58
    subnet_id = "3S..."
    name = "alpha"
    explorer_url = "https://explorer.example/alpha"
    native_token = { name = "Alpha Gas", symbol = "ALPHA", decimals = 18, logo = "https://..." }

A key the file does not know, a value of the wrong type, or a chain listed twice is an error
naming the file and the key: a typo must not silently leave a chain unlabelled.
"""

from __future__ import annotations

import tomllib
from typing import Any

from avadata import networks
from avadata.errors import ConfigError
from avadata.records.identity import ChainIdentity, NativeToken

_TOP = {"network": str, "chains": list}
_CHAIN = {
    "chain_id": int,
    "network": (str, int),
    "blockchain_id": str,
    "subnet_id": str,
    "name": str,
    "explorer_url": str,
    "native_token": dict,
}
_TOKEN = {"name": str, "symbol": str, "decimals": int, "logo": str}


class ChainsFileError(ConfigError):
    """The chains file cannot be read as the module doc describes. A usage error: exit 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=2)


def _checked(table: Any, allowed: dict[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ChainsFileError(f"{where}: must be a table")
    for key, value in table.items():
        kind = allowed.get(key)
        if kind is None:
            known = ", ".join(sorted(allowed))
            raise ChainsFileError(f"{where}: unknown key {key!r} (known: {known})")
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ChainsFileError(f"{where}: {key!r} has the wrong type ({value!r})")
    return table


def _network(value: Any, where: str) -> int | None:
    if value is None:
        return None
    try:
        return networks.parse(str(value)).network_id
    except ValueError as exc:
        raise ChainsFileError(f"{where}: network: {exc}") from None


def _chain(entry: Any, where: str, default_network: int | None) -> ChainIdentity:
    row = _checked(entry, _CHAIN, where)
    if "chain_id" not in row:
        raise ChainsFileError(f"{where}: chain_id is required")
    token = _checked(row.get("native_token", {}), _TOKEN, f"{where}.native_token")
    decimals = token.get("decimals")
    if decimals is not None and not 0 <= decimals <= 77:
        raise ChainsFileError(f"{where}.native_token: decimals must be 0..77")
    network = _network(row.get("network"), where)
    return ChainIdentity(
        chain_id=row["chain_id"],
        network_id=default_network if network is None else network,
        blockchain_id=row.get("blockchain_id"),
        subnet_id=row.get("subnet_id"),
        name=row.get("name"),
        token=NativeToken(token.get("name"), token.get("symbol"), decimals, token.get("logo")),
        explorer_url=row.get("explorer_url"),
    )


def parse(text: str, source: str = "chains file") -> dict[int, ChainIdentity]:
    """{EVM chain ID: identity}. ChainsFileError on anything the module doc does not allow."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ChainsFileError(f"{source}: not TOML: {exc}") from None
    top = _checked(doc, _TOP, source)
    default = _network(top.get("network"), source)
    out: dict[int, ChainIdentity] = {}
    for i, entry in enumerate(top.get("chains", [])):
        ident = _chain(entry, f"{source}: chains[{i}]", default)
        if ident.chain_id in out:
            raise ChainsFileError(f"{source}: chain {ident.chain_id} is listed twice")
        out[ident.chain_id] = ident
    return out


def render(identities: list[ChainIdentity], network: str | None = None) -> str:
    """A chains file holding `identities` (what `parse` reads back)."""
    lines = [f"network = {_toml(network)}", ""] if network else []
    for ident in identities:
        lines.append("[[chains]]")
        lines.append(f"chain_id = {ident.chain_id}")
        for key in ("blockchain_id", "subnet_id", "name", "explorer_url"):
            value = getattr(ident, key)
            if value is not None:
                lines.append(f"{key} = {_toml(value)}")
        if ident.network_id is not None:
            lines.append(f"network = {ident.network_id}")
        token = {
            k: getattr(ident.token, k)
            for k in ("name", "symbol", "decimals", "logo")
            if getattr(ident.token, k) is not None
        }
        if token:
            inner = ", ".join(f"{k} = {_toml(v)}" for k, v in token.items())
            lines.append(f"native_token = {{ {inner} }}")
        lines.append("")
    return "\n".join(lines)


def _toml(value: object) -> str:
    if isinstance(value, int):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


# `avadata index --label KEY=VALUE`: the chains file's keys of one chain, flattened.
LABEL_KEYS = (
    "network",
    "blockchain_id",
    "subnet_id",
    "name",
    "explorer_url",
    "token_name",
    "token_symbol",
    "token_decimals",
    "token_logo",
)


def parse_labels(pairs: list[str], chain_id: int) -> ChainIdentity:
    """The identity `--label KEY=VALUE` flags give the chain `chain_id`."""
    row: dict[str, Any] = {"chain_id": chain_id}
    token: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or key not in LABEL_KEYS:
            raise ChainsFileError(
                f"--label {pair!r}: want KEY=VALUE with KEY one of {', '.join(LABEL_KEYS)}"
            )
        if key.startswith("token_"):
            name = key.removeprefix("token_")
            if name == "decimals" and not value.isdigit():
                raise ChainsFileError(f"--label {pair!r}: decimals must be a number")
            token[name] = int(value) if name == "decimals" else value
        else:
            row[key] = value
    if token:
        row["native_token"] = token
    return _chain(row, "--label", None)
