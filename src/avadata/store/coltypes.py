"""Dialect-aware column types: dialect file 1 of 2 (the other is `dialect.py`).

Stage: store. Only this module and `dialect.py` may look at the dialect's name.

Invariant: a value read back equals the Python int written, on both engines, and the
engines order the column the same way the ints order (so keyset pages agree).

- `U256`: an unsigned 256-bit integer (amounts, wei, token ids). PostgreSQL stores
  NUMERIC(78, 0) (2**256 - 1 has 78 digits). SQLite's INTEGER stops at 2**63 - 1, so SQLite
  stores the decimal digits zero-padded to 78 characters: text order is then numeric order.
- `I256`: a signed integer of magnitude up to 2**256 - 1, for computed balances (a token that
  moves value without Transfer events can drive one below zero; we store what the events say
  rather than crash or clamp). On SQLite a negative value is "-" followed by the 78-digit
  complement 10**78 - |v|, so "-" (which sorts before "0") puts negatives first and a larger
  magnitude sorts earlier, as numbers do.
- `Address`, `Hash`: lower-case 0x hex text (records.py already normalises; nothing to convert).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Numeric, String
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeDecorator, TypeEngine

U256_MAX: int = 2**256 - 1
_DIGITS = 78  # len(str(2**256 - 1))
_NEG_BASE: int = 10**_DIGITS


def _is_sqlite(dialect: Dialect) -> bool:
    return dialect.name == "sqlite"


class U256(TypeDecorator[int]):
    """uint256: NUMERIC(78,0) on PostgreSQL, 78-character zero-padded text on SQLite."""

    impl = String(_DIGITS)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if _is_sqlite(dialect):
            return dialect.type_descriptor(String(_DIGITS))
        return dialect.type_descriptor(Numeric(_DIGITS, 0, asdecimal=True))

    def process_bind_param(self, value: int | None, dialect: Dialect) -> Any:
        if _is_sqlite(dialect):
            return _u256_to_text(value)
        return None if value is None else _u256_checked(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        if value is None:
            return None
        return int(value)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        # One plain function per value instead of TypeDecorator's closure around the method:
        # a whole block's transactions decode 150 of these.
        if _is_sqlite(dialect):
            return _u256_from_text
        return super().result_processor(dialect, coltype)

    def bind_processor(self, dialect: Dialect) -> Any:
        # Likewise on the way in: the indexer encodes ~600,000 of these per 100,000 txs.
        if _is_sqlite(dialect):
            return _u256_to_text
        return super().bind_processor(dialect)

    @property
    def python_type(self) -> type[int]:
        return int


def _u256_checked(value: int) -> int:
    v = int(value)
    if v < 0 or v > U256_MAX:
        raise ValueError(f"U256 out of range: {v}")
    return v


def _u256_to_text(value: int | None) -> str | None:
    if type(value) is int and 0 <= value <= U256_MAX:  # nearly every value: one test, no call
        return f"{value:078d}"
    return None if value is None else f"{_u256_checked(value):078d}"


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


def _u256_from_text(value: str | int | None) -> int | None:
    # An int when the column was read through `u256_out`.
    if value is None or type(value) is int:
        return value
    return int(value)


class _U256Out(ColumnElement[int]):
    """See `u256_out`."""

    # The wrapped column is part of the statement's cache key.
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]
    inherit_cache = True

    def __init__(self, column: ColumnElement[int]) -> None:
        self.column = column
        self.type = column.type

    @property
    def _from_objects(self) -> list[Any]:
        return self.column._from_objects


# 2**63 as SQLite stores a U256: below it, a value is a 64-bit SQLite integer.
_I64_BOUND = f"'{2**63:0{_DIGITS}d}'"


@compiles(_U256Out)
def _u256_out_default(element: _U256Out, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(element.column, **kw))


@compiles(_U256Out, "sqlite")
def _u256_out_sqlite(element: _U256Out, compiler: Any, **kw: Any) -> str:
    col = compiler.process(element.column, **kw)
    return f"CASE WHEN {col} < {_I64_BOUND} THEN CAST({col} AS INTEGER) ELSE {col} END"


def u256_out(column: ColumnElement[int]) -> ColumnElement[int]:
    """A U256 column as a SELECT should return it. On SQLite the 78 padded digits are cast to
    an integer inside SQLite whenever the value fits 64 bits (SQLite's CAST clamps larger ones,
    which come back as text): no 78-character string to build and parse per value, about 0.1
    us each (a block's 50 transactions carry 150). Elsewhere the column as it is. For the
    columns clause only: comparisons and ORDER BY keep the stored column."""
    return _U256Out(column)


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
        if value is None:
            return None
        if isinstance(value, str):
            return _i256_from_text(value)
        return int(value)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        if _is_sqlite(dialect):
            return _i256_from_text
        return super().result_processor(dialect, coltype)

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
