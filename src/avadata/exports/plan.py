"""What an export writes, fixed when it is created, and where it stands: pure, JSON both ways.

Stage: exports. The API makes a plan (api/operations/) and stores it with the operation; the
worker follows it; the operation's answer reads its progress from it.

A plan is a list of parts, one per chain, written one after another into one file. A part's
rows are the chain's transactions (of its addresses, when given) within its bounds: for an
EVM chain blocks [first, last] (the indexed head when the export was made, at the latest, so
an export ends); for a primary chain block times [start, end]. `span` is the part's range in
the unit its position moves in (blocks, or seconds), for the progress figure only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Family = Literal["evm", "primary"]
Format = Literal["csv", "parquet"]


@dataclass(frozen=True, slots=True)
class Part:
    chain: str  # EVM: the chain ID; primary: the store's chain key (P, X, C)
    label: str  # what the rows name the chain by (the chain ID, or the blockchain ID)
    addresses: tuple[str, ...]
    first: int | None  # EVM: first block; primary: first block time (None: no bound)
    last: int | None
    span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Plan:
    family: Family
    format: Format
    columns: str  # a name in exports/columns.py
    parts: tuple[Part, ...]
    tx_types: tuple[str, ...] = ()

    def to_json(self) -> str:
        parts = [
            {
                "chain": p.chain,
                "label": p.label,
                "addresses": list(p.addresses),
                "first": p.first,
                "last": p.last,
                "span": list(p.span),
            }
            for p in self.parts
        ]
        body = {
            "family": self.family,
            "format": self.format,
            "columns": self.columns,
            "txTypes": list(self.tx_types),
            "parts": parts,
        }
        return json.dumps(body, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Plan:
        body: dict[str, Any] = json.loads(text)
        parts = tuple(
            Part(
                chain=str(p["chain"]),
                label=str(p["label"]),
                addresses=tuple(p["addresses"]),
                first=p["first"],
                last=p["last"],
                span=(int(p["span"][0]), int(p["span"][1])),
            )
            for p in body["parts"]
        )
        return Plan(body["family"], body["format"], body["columns"], parts, tuple(body["txTypes"]))


@dataclass(frozen=True, slots=True)
class Position:
    """The part being written and the position after its last row written (None: none)."""

    part: int = 0
    after: tuple[int, ...] | None = None

    def to_json(self) -> str:
        return json.dumps({"part": self.part, "after": self.after}, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Position:
        body = json.loads(text)
        after = body["after"]
        return Position(int(body["part"]), None if after is None else tuple(after))


def progress(plan: Plan, at: Position, done: bool) -> float:
    """The share of the plan written, in [0, 1]: whole parts, plus the current part's share of
    its span (its position's first member against the span; an estimate: rows are not spread
    evenly). 1 only when done."""
    if done or not plan.parts:
        return 1.0
    share = 0.0
    if at.part < len(plan.parts) and at.after is not None:
        lo, hi = plan.parts[at.part].span
        share = min(1.0, max(0.0, (at.after[0] - lo + 1) / (hi - lo + 1))) if hi >= lo else 0.0
    return min(0.999, (at.part + share) / len(plan.parts))
