"""Declarative field kinds: a struct is a dataclass whose fields are `Annotated[T, Kind]`.

`@struct` reads those annotations once and stores the (name, kind) pairs in declaration order,
which is the wire order of avalanchego's reflectcodec. Reading and writing are then generic
walks over that list, so every type is described exactly once and both directions agree.
Fields without a `Kind` annotation (cached IDs, spans) are not serialized.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, ClassVar, TypeVar

from avadata.decode.codec.reader import MAX_IFACE_DEPTH, DecodeError, Reader, too_deep
from avadata.decode.codec.writer import EncodeError, Writer

T = TypeVar("T")


class TypeTable:
    """One VM's interface type IDs (IDs come from type_ids.py; classes are bound by name)."""

    def __init__(self, name: str, by_id: dict[int, type[Any]]) -> None:
        self.name = name
        self.by_id = by_id
        self.by_cls = {cls: tid for tid, cls in by_id.items()}

    def type_id(self, obj: object) -> int:
        tid = self.by_cls.get(type(obj))
        if tid is None:
            raise EncodeError(f"{type(obj).__name__} has no type ID in the {self.name} codec")
        return tid


class Kind:
    min_size: int = 0

    def read(self, r: Reader, t: TypeTable) -> Any:
        raise NotImplementedError

    def write(self, w: Writer, t: TypeTable, v: Any) -> None:
        raise NotImplementedError


class _U8(Kind):
    min_size = 1

    def read(self, r: Reader, t: TypeTable) -> int:
        return r.u8()

    def write(self, w: Writer, t: TypeTable, v: int) -> None:
        w.u8(v)


class _U16(Kind):
    min_size = 2

    def read(self, r: Reader, t: TypeTable) -> int:
        return r.u16()

    def write(self, w: Writer, t: TypeTable, v: int) -> None:
        w.u16(v)


class _U32(Kind):
    min_size = 4

    def read(self, r: Reader, t: TypeTable) -> int:
        return r.u32()

    def write(self, w: Writer, t: TypeTable, v: int) -> None:
        w.u32(v)


class _U64(Kind):
    min_size = 8

    def read(self, r: Reader, t: TypeTable) -> int:
        return r.u64()

    def write(self, w: Writer, t: TypeTable, v: int) -> None:
        w.u64(v)


class _I64(Kind):
    min_size = 8

    def read(self, r: Reader, t: TypeTable) -> int:
        return r.i64()

    def write(self, w: Writer, t: TypeTable, v: int) -> None:
        w.i64(v)


class _Bool(Kind):
    min_size = 1

    def read(self, r: Reader, t: TypeTable) -> bool:
        return r.boolean()

    def write(self, w: Writer, t: TypeTable, v: bool) -> None:
        w.boolean(v)


class Fixed(Kind):
    """A Go `[N]byte` array: N raw bytes, no length."""

    def __init__(self, n: int, what: str = "bytes") -> None:
        self.min_size = n
        self.what = what

    def read(self, r: Reader, t: TypeTable) -> bytes:
        return r.fixed(self.min_size, self.what)

    def write(self, w: Writer, t: TypeTable, v: bytes) -> None:
        w.fixed(v, self.min_size)


class _VarBytes(Kind):
    min_size = 4

    def read(self, r: Reader, t: TypeTable) -> bytes:
        return r.var_bytes()

    def write(self, w: Writer, t: TypeTable, v: bytes) -> None:
        w.var_bytes(v)


class _Str(Kind):
    min_size = 2

    def read(self, r: Reader, t: TypeTable) -> str:
        return r.string()

    def write(self, w: Writer, t: TypeTable, v: str) -> None:
        w.string(v)


class ListOf(Kind):
    """A Go slice of non-byte elements: u32 count, then the elements; read as a tuple."""

    min_size = 4

    def __init__(self, elem: Kind, what: str = "slice") -> None:
        self.elem = elem
        self.what = what
        self.elem_min = max(elem.min_size, 1)

    def read(self, r: Reader, t: TypeTable) -> tuple[Any, ...]:
        n = r.count(self.elem_min, self.what)
        read = self.elem.read
        return tuple([read(r, t) for _ in range(n)])

    def write(self, w: Writer, t: TypeTable, v: tuple[Any, ...]) -> None:
        w.count(len(v))
        write = self.elem.write
        for item in v:
            write(w, t, item)


class Inline(Kind):
    """An embedded or plain struct field: its fields in place, no type ID."""

    def __init__(self, cls: type[Any]) -> None:
        self.cls = cls
        self.min_size = cls.__codec_min_size__

    def read(self, r: Reader, t: TypeTable) -> Any:
        return read_struct(self.cls, r, t)

    def write(self, w: Writer, t: TypeTable, v: Any) -> None:
        write_struct(v, w, t)


class Iface(Kind):
    """An interface field: u32 type ID, then the concrete value, which must subclass `role`."""

    min_size = 4

    def __init__(self, role: type[Any]) -> None:
        self.role = role
        # per table: the type IDs whose classes fill this role (the hot path is one dict get)
        self._allowed: dict[int, dict[int, type[Any]]] = {}

    def _allowed_in(self, t: TypeTable) -> dict[int, type[Any]]:
        allowed = self._allowed.get(id(t))
        if allowed is None:
            allowed = {i: c for i, c in t.by_id.items() if issubclass(c, self.role)}
            self._allowed[id(t)] = allowed
        return allowed

    def read(self, r: Reader, t: TypeTable) -> Any:
        pos = r.pos
        tid = r.u32()
        cls = self._allowed_in(t).get(tid)
        if cls is None:
            known = t.by_id.get(tid)
            if known is None:
                raise DecodeError(pos, f"a known {t.name} type ID, got {tid}")
            raise DecodeError(pos, f"a {self.role.__name__} type ID, got {tid} ({known.__name__})")
        if r.depth >= MAX_IFACE_DEPTH:
            raise too_deep(pos)
        r.depth += 1
        value = read_struct(cls, r, t)
        r.depth -= 1  # not restored on error: a DecodeError abandons the whole Reader
        return value

    def write(self, w: Writer, t: TypeTable, v: Any) -> None:
        if not isinstance(v, self.role):
            raise EncodeError(f"{type(v).__name__} is not a {self.role.__name__}")
        w.u32(t.type_id(v))
        write_struct(v, w, t)


U8 = _U8()
U16 = _U16()
U32 = _U32()
U64 = _U64()
I64 = _I64()
BOOL = _Bool()
VAR_BYTES = _VarBytes()
STR = _Str()
ID32 = Fixed(32, "32-byte ID")
SHORT_ID = Fixed(20, "20-byte short ID")
NODE_ID = Fixed(20, "20-byte node ID")
EVM_ADDRESS = Fixed(20, "20-byte EVM address")
SIG65 = Fixed(65, "65-byte secp256k1 signature")
BLS_PUBKEY = Fixed(48, "48-byte BLS public key")
BLS_SIG = Fixed(96, "96-byte BLS signature")


_PRIMITIVE_METHODS: dict[int, str] = {
    id(U8): "u8",
    id(U16): "u16",
    id(U32): "u32",
    id(U64): "u64",
    id(I64): "i64",
    id(BOOL): "boolean",
    id(VAR_BYTES): "var_bytes",
    id(STR): "string",
}


class JsonName:
    """Annotation metadata: the JSON key for a field when camelCase of its name is wrong."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Struct:
    """Base of every serializable dataclass (filled in by @struct)."""

    __slots__ = ()

    __codec_fields__: ClassVar[tuple[tuple[str, Kind], ...]] = ()
    __codec_min_size__: ClassVar[int] = 0


S = TypeVar("S", bound=type[Struct])


@typing.dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def struct(cls: S) -> S:
    """Make `cls` a frozen dataclass and record its codec fields in declaration order."""
    dc: Any = dataclasses.dataclass(frozen=True, slots=True)(cls)
    hints = typing.get_type_hints(dc, include_extras=True)
    fields: list[tuple[str, Kind]] = []
    json_names: dict[str, str] = {}
    for f in dataclasses.fields(dc):
        meta = getattr(hints[f.name], "__metadata__", ())
        kinds = [m for m in meta if isinstance(m, Kind)]
        if kinds:
            fields.append((f.name, kinds[0]))
        json_names.update((f.name, m.name) for m in meta if isinstance(m, JsonName))
    dc.__codec_fields__ = tuple(fields)
    dc.__codec_json__ = json_names
    dc.__codec_min_size__ = sum(k.min_size for _, k in fields)
    dc.__codec_read__ = _compile_reader(dc, fields)
    return typing.cast(S, dc)


def _compile_reader(cls: type[Any], fields: list[tuple[str, Kind]]) -> Any:
    """One straight-line function per struct: `cls(r.u32(), r.fixed(32, ...), rd2(r, t))`.

    This is the decoder's hot path; generating it once (as dataclasses does for __init__)
    removes a call layer per primitive field and the per-struct loop. Codec fields come
    first in every struct, so positional arguments line up (non-codec fields have defaults).
    """
    ns: dict[str, Any] = {"cls": cls}
    args: list[str] = []
    for i, (_, kind) in enumerate(fields):
        method = _PRIMITIVE_METHODS.get(id(kind))
        if method is not None:
            args.append(f"r.{method}()")
        elif type(kind) is Fixed:
            ns[f"w{i}"] = kind.what
            args.append(f"r.fixed({kind.min_size}, w{i})")
        else:
            ns[f"rd{i}"] = kind.read
            args.append(f"rd{i}(r, t)")
    src = f"def read(r, t):\n    return cls({', '.join(args)})\n"
    exec(src, ns)  # noqa: S102 - source built above from our own field table only
    return ns["read"]


def read_struct(cls: type[T], r: Reader, t: TypeTable) -> T:
    obj: T = cls.__codec_read__(r, t)  # type: ignore[attr-defined]
    return obj


def write_struct(obj: Any, w: Writer, t: TypeTable) -> None:
    for name, kind in obj.__codec_fields__:
        kind.write(w, t, getattr(obj, name))
