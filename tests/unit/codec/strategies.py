"""Hypothesis strategies built from the codec's own field declarations.

Each struct's strategy draws every declared field; interface fields draw any registered class
of the right role. Depth is bounded so stakeable locks do not nest forever.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from avadata.decode.codec import fields as f
from avadata.decode.codec.fields import Fixed, Iface, Inline, Kind, ListOf, TypeTable

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_INTS: dict[int, st.SearchStrategy[int]] = {
    id(f.U8): st.integers(0, 2**8 - 1),
    id(f.U16): st.integers(0, 2**16 - 1),
    id(f.U32): st.integers(0, 2**32 - 1),
    id(f.U64): st.integers(0, 2**64 - 1),
    id(f.I64): st.integers(-(2**63), 2**63 - 1),
}


def _has_iface(cls: type) -> bool:
    return any(isinstance(k, Iface) for _, k in cls.__codec_fields__)  # type: ignore[attr-defined]


def kind_strategy(kind: Kind, table: TypeTable, depth: int) -> st.SearchStrategy[Any]:
    if id(kind) in _INTS:
        return _INTS[id(kind)]
    if kind is f.BOOL:
        return st.booleans()
    if kind is f.VAR_BYTES:
        return st.binary(max_size=24)
    if kind is f.STR:
        return _TEXT
    if isinstance(kind, Fixed):
        return st.binary(min_size=kind.min_size, max_size=kind.min_size)
    if isinstance(kind, ListOf):
        return st.lists(kind_strategy(kind.elem, table, depth + 1), max_size=3).map(tuple)
    if isinstance(kind, Inline):
        return struct_strategy(kind.cls, table, depth + 1)
    if isinstance(kind, Iface):
        classes = sorted(
            (c for c in table.by_id.values() if issubclass(c, kind.role)),
            key=lambda c: table.by_cls[c],
        )
        if depth > 3:
            classes = [c for c in classes if not _has_iface(c)] or classes[:1]
        return st.one_of([struct_strategy(c, table, depth + 1) for c in classes])
    raise TypeError(f"no strategy for {kind!r}")


def struct_strategy(cls: type, table: TypeTable, depth: int = 0) -> st.SearchStrategy[Any]:
    parts = {
        name: kind_strategy(kind, table, depth)
        for name, kind in cls.__codec_fields__  # type: ignore[attr-defined]
    }
    return st.fixed_dictionaries(parts).map(lambda kw: cls(**kw))


def iface_strategy(role: type, table: TypeTable) -> st.SearchStrategy[Any]:
    return kind_strategy(Iface(role), table, 0)
