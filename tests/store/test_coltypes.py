"""U256 and I256 keep exact values and numeric order on both engines."""

from __future__ import annotations

import random
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import BigInteger, Column, MetaData, Table, bindparam, insert, select
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite as sqlite_dialect

from avadata.store import dialect
from avadata.store.coltypes import I256, U256

MAX = 2**256 - 1


def _scratch(engine, coltype):
    md = MetaData()
    t = Table("scratch", md, Column("id", BigInteger, primary_key=True), Column("v", coltype))
    md.create_all(engine)
    return t


def _edge_values(rng: random.Random, signed: bool) -> list[int]:
    vals = [0, 1, 9, 10, 2**63 - 1, 2**63, 2**64, 10**77, MAX - 1, MAX]
    vals += [rng.randrange(0, MAX) for _ in range(40)]
    vals += [rng.randrange(0, 2**70) for _ in range(20)]
    if signed:
        vals += [-v for v in vals if v] + [-MAX]
    return vals


@pytest.mark.parametrize("coltype,signed", [(U256, False), (I256, True)], ids=["U256", "I256"])
def test_round_trip_and_order(engine, coltype, signed):
    t = _scratch(engine, coltype())
    vals = _edge_values(random.Random(7), signed)
    with engine.begin() as conn:
        conn.execute(insert(t), [{"id": i, "v": v} for i, v in enumerate(vals)])
    with engine.connect() as conn:
        back = dict(conn.execute(select(t.c.id, t.c.v)).all())
        ordered = [r[0] for r in conn.execute(select(t.c.v).order_by(t.c.v, t.c.id))]
        # A comparison with a bound value goes through the same encoding.
        above = {r[0] for r in conn.execute(select(t.c.v).where(t.c.v > 2**63))}
        top = conn.execute(select(t.c.v).where(t.c.v == MAX)).scalar_one()
    assert back == dict(enumerate(vals))
    assert all(type(v) is int for v in back.values())
    assert ordered == sorted(vals)
    assert above == {v for v in vals if v > 2**63}
    assert top == MAX


@pytest.mark.parametrize(
    "coltype,bad", [(U256, -1), (U256, MAX + 1), (I256, MAX + 1), (I256, -MAX - 1)]
)
def test_out_of_range_is_refused(engine, coltype, bad):
    t = _scratch(engine, coltype())
    with pytest.raises(Exception, match="out of range"), engine.begin() as conn:
        conn.execute(insert(t), {"id": 1, "v": bad})


def test_none_stays_none(engine):
    t = _scratch(engine, U256())
    with engine.begin() as conn:
        conn.execute(insert(t), {"id": 1, "v": None})
    with engine.connect() as conn:
        assert conn.execute(select(t.c.v)).scalar_one() is None


@given(a=st.integers(-MAX, MAX), b=st.integers(-MAX, MAX))
def test_sqlite_i256_encoding_orders_like_the_integers(a, b):
    """The SQLite I256 encoding compares as text exactly as the ints compare."""
    d = sqlite_dialect()
    enc = I256().process_bind_param
    assert (enc(a, d) < enc(b, d)) == (a < b)
    assert I256().process_result_value(enc(a, d), d) == a


_SQLITE = sqlite3.connect(":memory:")
_EDGES = [0, 1, 2**63 - 1, 2**63, 2**64, MAX]


@given(
    a=st.one_of(st.integers(0, MAX), st.integers(0, 2**64), st.sampled_from(_EDGES)),
    b=st.one_of(st.integers(0, MAX), st.integers(0, 2**64), st.sampled_from(_EDGES)),
)
def test_sqlite_u256_encoding_orders_like_the_integers(a, b):
    """SQLite itself compares two U256 encodings (an INTEGER below 2**63, padded text from
    there) as the ints compare, and they decode to the ints."""
    d = sqlite_dialect()
    u = U256()
    x, y = u.process_bind_param(a, d), u.process_bind_param(b, d)
    less, same = _SQLITE.execute("SELECT ? < ?, ? = ?", (x, y, x, y)).fetchone()
    assert (bool(less), bool(same)) == (a < b, a == b)
    assert u.process_result_value(x, d) == a
    assert type(x) is (int if a < 2**63 else str)


def test_sqlite_u256_column_keeps_integers(tmp_path):
    """The column's affinity keeps a small value an INTEGER and a large one text (a TEXT
    affinity would store the integers as unpadded text, out of order)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{tmp_path / 'u.db'}")
    t = _scratch(engine, U256())
    with engine.begin() as conn:
        conn.execute(insert(t), [{"id": i, "v": v} for i, v in enumerate(_EDGES)])
        kinds = conn.execute(text("SELECT typeof(v) FROM scratch ORDER BY id")).scalars().all()
    engine.dispose()
    assert kinds == ["integer"] * 3 + ["text"] * 3


def test_prepared_reads_the_stored_values(engine):
    """The prepared read path gives the same ints as SQLAlchemy's, either side of 2**63 where
    SQLite switches from its integer to the text."""
    t = _scratch(engine, U256())
    vals = [*_edge_values(random.Random(11), False), 2**63 - 2, 2**63 + 1, None]
    with engine.begin() as conn:
        conn.execute(insert(t), [{"id": i, "v": v} for i, v in enumerate(vals)])
    stmt = (
        select(t.c.id, t.c.v)
        .where(t.c.v.is_(None) | (t.c.v >= bindparam("low", type_=t.c.v.type)))
        .order_by(t.c.v, t.c.id)
    )
    with engine.connect() as conn:
        plain = [tuple(r) for r in conn.execute(stmt, {"low": 0})]
        keys, prepared = dialect.read_rows(conn, stmt, {"low": 0})
    assert [tuple(r) for r in prepared] == plain and keys == ("id", "v")
    assert dict(plain) == dict(enumerate(vals))
    assert all(type(v) is int for _, v in plain if v is not None)
    # Ordered by the stored column (the engines differ only in where NULL goes).
    assert [v for _, v in plain if v is not None] == sorted(v for v in vals if v is not None)
