"""Field-by-field listing of encoded bytes: one field per line, hex then `# path = value`.

The golden files in golden/ are such listings of vector bytes. A test re-joins their hex (it
must equal the vector, an independent source) and re-traces the vector with our field
declarations (the split and the names must match the file, which pins the layout).
"""

from __future__ import annotations

from typing import Any

from avadata.decode.codec import fields as f
from avadata.decode.codec.fields import Iface, Inline, Kind, ListOf, TypeTable
from avadata.decode.codec.reader import Reader

Line = tuple[str, str]


def _field(r: Reader, kind: Kind, t: TypeTable, path: str, out: list[Line]) -> Any:
    start = r.pos
    if isinstance(kind, Iface):
        tid = r.u32()
        cls = t.by_id[tid]
        out.append((r.buf[start : r.pos].hex(), f"{path}: type ID {tid} = {cls.__name__}"))
        _struct(r, cls, t, path, out)
        return None
    if isinstance(kind, Inline):
        _struct(r, kind.cls, t, path, out)
        return None
    if isinstance(kind, ListOf):
        n = r.u32()
        out.append((r.buf[start : r.pos].hex(), f"{path}: {n} element(s)"))
        for i in range(n):
            _field(r, kind.elem, t, f"{path}[{i}]", out)
        return None
    if kind is f.VAR_BYTES:
        n = r.u32()
        out.append((r.buf[start : r.pos].hex(), f"{path}: length {n}"))
        if n:
            out.append((r.fixed(n).hex(), f"{path}"))
        return None
    if kind is f.STR:
        n = r.u16()
        out.append((r.buf[start : r.pos].hex(), f"{path}: length {n}"))
        if n:
            out.append((r.fixed(n).hex(), f"{path} = {r.buf[r.pos - n : r.pos].decode()!r}"))
        return None
    value = kind.read(r, t)
    shown = f" = {value}" if isinstance(value, int) else ""
    out.append((r.buf[start : r.pos].hex(), f"{path}{shown}"))
    return None


def _struct(r: Reader, cls: type, t: TypeTable, path: str, out: list[Line]) -> None:
    for name, kind in cls.__codec_fields__:  # type: ignore[attr-defined]
        _field(r, kind, t, f"{path}.{name}" if path else name, out)


def trace(data: bytes, top: Kind, t: TypeTable) -> list[Line]:
    r = Reader(data)
    out: list[Line] = []
    r.version()
    out.append((data[:2].hex(), "codec version = 0"))
    _field(r, top, t, "", out)
    r.done()
    return out


def render(lines: list[Line]) -> str:
    return "".join(f"{h:<16} # {c}\n" for h, c in lines)


def parse(text: str) -> list[Line]:
    out: list[Line] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        h, _, c = line.partition("#")
        out.append((h.strip(), c.strip()))
    return out
