"""Dialect-aware column types: dialect file 1 of 2 (the other is `dialect.py`).

Stage: store. Only this module and `dialect.py` may look at the dialect's name.

Invariant: a value read back equals the Python int written, on both engines, and the
engines order the column the same way the ints order (so keyset pages agree).

- `U256`: an unsigned 256-bit integer (amounts, wei, token ids). PostgreSQL stores
  NUMERIC(78, 0) (2**256 - 1 has 78 digits). SQLite's INTEGER stops at 2**63 - 1, so SQLite
  stores a value below 2**63 as an INTEGER and a larger one as its decimal digits zero-padded
  to 78 characters (TEXT), in a column of BLOB affinity, which keeps each value as bound.
  SQLite orders every INTEGER before every TEXT, and every padded text above every integer
  that fits 64 bits: the mixed column orders as the numbers do (docs/store.md). Nearly every
  gas price, nonce and native value is then an integer of a few bytes: a 78-character text
  each before revision 0011 (a smaller store and a faster writer: docs/benchmarks.md).
- `I256`: a signed integer of magnitude up to 2**256 - 1, for computed balances (a token that
  moves value without Transfer events can drive one below zero; we store what the events say
  rather than crash or clamp). On SQLite a negative value is "-" followed by the 78-digit
  complement 10**78 - |v|, so "-" (which sorts before "0") puts negatives first and a larger
  magnitude sorts earlier, as numbers do.
- `Address`, `Hash`: lower-case 0x hex text (records.py already normalises; nothing to convert).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import BLOB, Numeric, String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

U256_MAX: int = 2**256 - 1
_DIGITS = 78  # len(str(2**256 - 1))
# Below this, SQLite stores a U256 as an INTEGER (dialect.u256_storage converts to and from it).
SQLITE_INTEGER_END: int = 2**63
_NEG_BASE: int = 10**_DIGITS


def _is_sqlite(dialect: Dialect) -> bool:
    return dialect.name == "sqlite"


class U256(TypeDecorator[int]):
    """uint256: NUMERIC(78,0) on PostgreSQL; on SQLite an INTEGER below 2**63, else 78-digit
    zero-padded text, in a column of BLOB affinity (see the module docstring)."""

    impl = String(_DIGITS)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if _is_sqlite(dialect):
            # BLOB affinity: TEXT affinity would turn the integers into unpadded text.
            return dialect.type_descriptor(BLOB())
        return dialect.type_descriptor(Numeric(_DIGITS, 0, asdecimal=True))

    def process_bind_param(self, value: int | None, dialect: Dialect) -> Any:
        if _is_sqlite(dialect):
            return _u256_to_sqlite(value)
        return None if value is None else _u256_checked(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        if value is None:
            return None
        return int(value)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        # One plain function per value instead of TypeDecorator's closure around the method
        # (and, on PostgreSQL, around the Numeric's processor, none for psycopg's Decimal): a
        # whole block's transactions decode 150 of these.
        if _is_sqlite(dialect):
            return _u256_from_sqlite
        return _int_or_none

    def bind_processor(self, dialect: Dialect) -> Any:
        # Likewise on the way in: the indexer encodes ~600,000 of these per 100,000 txs.
        if _is_sqlite(dialect):
            return _u256_to_sqlite
        return super().bind_processor(dialect)

    @property
    def python_type(self) -> type[int]:
        return int


class U256Text(TypeDecorator[int]):
    """U256 as the revisions before 20261125_0011 declared it: NUMERIC(78,0) on PostgreSQL,
    VARCHAR(78) (padded text) on SQLite. For those migrations only, so the history builds the
    stores it built then, which revision 0011 converts."""

    impl = String(_DIGITS)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if _is_sqlite(dialect):
            return dialect.type_descriptor(String(_DIGITS))
        return dialect.type_descriptor(Numeric(_DIGITS, 0, asdecimal=True))


def _u256_checked(value: int) -> int:
    v = int(value)
    if v < 0 or v > U256_MAX:
        raise ValueError(f"U256 out of range: {v}")
    return v


def _u256_to_sqlite(value: int | None) -> int | str | None:
    # Nearly every value: one test, no call.
    if type(value) is int and 0 <= value < SQLITE_INTEGER_END:
        return value
    if value is None:
        return None
    v = _u256_checked(value)  # an int of another type (bool, Decimal) lands here too
    return v if v < SQLITE_INTEGER_END else f"{v:078d}"


def misfits(proc: Any, col: Sequence[Any]) -> list[int] | None:
    """The positions in `col` whose values the encoder `proc` changes; None: (nearly) all, as
    for any encoder but U256's, whose values nearly all bind as they are (ints below 2**63)."""
    if proc is not _u256_to_sqlite:
        return None
    return [
        i
        for i, v in enumerate(col)
        if v is not None and (type(v) is not int or not 0 <= v < SQLITE_INTEGER_END)
    ]


def _i256_checked(value: int) -> int:
    v = int(value)
    if v < -U256_MAX or v > U256_MAX:
        raise ValueError(f"I256 out of range: {v}")
    return v


def _i256_to_text(value: int | None) -> str | None:
    if value is None:
        return None
    v = _i256_checked(value)
    # "0" prefix for non-negatives keeps every value the same width, so text order holds.
    return f"0{v:078d}" if v >= 0 else f"-{_NEG_BASE + v:078d}"


def _int_or_none(value: Any) -> int | None:
    """A NUMERIC(78, 0) as psycopg returns it (a Decimal) -> int."""
    return None if value is None else int(value)


def _i256_from_any(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _i256_from_text(value)
    return int(value)


def _u256_from_sqlite(value: str | int | None) -> int | None:
    if value is None or type(value) is int:
        return value
    return int(value)


def _i256_from_text(value: str | None) -> int | None:
    if value is None:
        return None
    if value.startswith("-"):
        return int(value[1:]) - _NEG_BASE
    return int(value)


class I256(TypeDecorator[int]):
    """A signed integer, |v| <= 2**256 - 1: NUMERIC(78,0) on PostgreSQL, sortable text on SQLite."""

    impl = String(_DIGITS + 1)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if _is_sqlite(dialect):
            return dialect.type_descriptor(String(_DIGITS + 1))
        return dialect.type_descriptor(Numeric(_DIGITS, 0, asdecimal=True))

    def process_bind_param(self, value: int | None, dialect: Dialect) -> Any:
        if _is_sqlite(dialect):
            return _i256_to_text(value)
        return None if value is None else _i256_checked(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        return _i256_from_any(value)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        if _is_sqlite(dialect):
            return _i256_from_text
        return _i256_from_any

    def bind_processor(self, dialect: Dialect) -> Any:
        if _is_sqlite(dialect):
            return _i256_to_text
        return super().bind_processor(dialect)

    @property
    def python_type(self) -> type[int]:
        return int


def Address() -> String:
    """A lower-case 0x-prefixed 20-byte address (42 characters)."""
    return String(42)


def Hash() -> String:
    """A lower-case 0x-prefixed 32-byte hash (66 characters)."""
    return String(66)
