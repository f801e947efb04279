"""Balance histories and NFT owners against an independent computation, on both engines.

The expected balances are recomputed here from the generated transfers alone (a plain sum of
every transfer up to the block), never from the writer's rows.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from avadata.records import NativeBalance, TokenStandard
from avadata.store import write_evm_batch
from avadata.store.queries.balances import erc20_at
from avadata.store.reads import (
    erc20_balance,
    erc721_owner,
    erc1155_balance,
    native_balance,
)
from avadata.store.schema import erc20_balances, erc1155_balances, tokens
from tests.store import builders as B

_chain_ids = itertools.count(1_000)
HOLDERS = [B.ZERO] + [B.addr(n) for n in range(1, 5)]
TOKENS = [B.addr(0xA20), B.addr(0xB20)]
NBLOCKS = 12

# Values mix small amounts and huge ones (sums of a few dozen stay within uint256).
values = st.one_of(st.integers(0, 1000), st.integers(0, 2**250))
transfer_specs = st.lists(
    st.tuples(
        st.integers(0, NBLOCKS - 1),  # block
        st.sampled_from(TOKENS),
        st.sampled_from(HOLDERS),  # from
        st.sampled_from(HOLDERS),  # to
        values,
        st.sampled_from([None, 0, 1, 2**256 - 1]),  # None: ERC-20; else an ERC-1155 id
    ),
    max_size=40,
)
# Where the block range is cut into batches, and which batch numbers get replayed later.
cuts = st.sets(st.integers(1, NBLOCKS - 1), max_size=5)
replays = st.lists(st.integers(0, 5), max_size=3)

FIXTURE_OK = settings(
    max_examples=20,
    deadline=None,
    # One database per test; each example uses a chain id of its own instead.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _build(chain, specs):
    per_block = defaultdict(int)
    transfers = []
    for block, token, frm, to, value, token_id in specs:
        log_index = per_block[block]
        per_block[block] += 1
        std = TokenStandard.ERC20 if token_id is None else TokenStandard.ERC1155
        transfers.append(
            B.transfer(
                chain, block, log_index, token, frm, to, value, standard=std, token_id=token_id
            )
        )
    return transfers


def _write_in_batches(engine, chain, transfers, cut_points, replay_idx):
    bounds = [0, *sorted(cut_points), NBLOCKS]
    batches = []
    for lo, hi in itertools.pairwise(bounds):
        mine = [t for t in transfers if lo <= t.block_number < hi]
        batches.append(B.batch(chain, lo, hi - 1, transfers=mine))
    for i, b in enumerate(batches):
        write_evm_batch(engine, b)
        for r in replay_idx:
            if r <= i:
                write_evm_batch(engine, batches[r])  # an older range again: must change nothing


def _expected(specs, holder, token, token_id, block):
    total = 0
    for b, tok, frm, to, value, tid in specs:
        if b <= block and tok == token and tid == token_id:
            total += value if to == holder else 0
            total -= value if frm == holder else 0
    return total


@FIXTURE_OK
@given(specs=transfer_specs, cut_points=cuts, replay_idx=replays)
def test_balance_at_every_block_matches_an_independent_sum(engine, specs, cut_points, replay_idx):
    chain = next(_chain_ids)
    _write_in_batches(engine, chain, _build(chain, specs), cut_points, replay_idx)
    with engine.connect() as conn:
        for token in TOKENS:
            for holder in HOLDERS[1:]:
                for block in range(NBLOCKS):
                    assert erc20_balance(conn, chain, token, holder, block) == _expected(
                        specs, holder, token, None, block
                    )
                    for tid in (0, 1, 2**256 - 1):
                        got = erc1155_balance(conn, chain, token, tid, holder, block)
                        assert got == _expected(specs, holder, token, tid, block)
                assert erc20_balance(conn, chain, token, holder) == _expected(
                    specs, holder, token, None, NBLOCKS
                )
        # Mints and burns go through the zero address, which is no holder.
        for t in (erc20_balances, erc1155_balances):
            zero_rows = conn.execute(
                select(func.count())
                .select_from(t)
                .where(t.c.chain_id == chain, t.c.holder == B.ZERO)
            ).scalar_one()
            assert zero_rows == 0


@FIXTURE_OK
@given(
    moves=st.lists(
        st.tuples(st.integers(0, NBLOCKS - 1), st.integers(0, 2), st.sampled_from(HOLDERS)),
        max_size=30,
    ),
    cut_points=cuts,
    replay_idx=replays,
)
def test_erc721_owner_is_the_last_transfer_despite_replays(engine, moves, cut_points, replay_idx):
    chain = next(_chain_ids)
    token = B.addr(0x721)
    per_block = defaultdict(int)
    transfers = []
    for block, token_id, to in moves:
        log_index = per_block[block]
        per_block[block] += 1
        transfers.append(
            B.transfer(
                chain,
                block,
                log_index,
                token,
                B.addr(99),
                to,
                1,
                standard=TokenStandard.ERC721,
                token_id=token_id,
            )
        )
    _write_in_batches(engine, chain, transfers, cut_points, replay_idx)
    # Independent: the recipient of the transfer at the greatest (block, log_index) position.
    last = {}
    for t in sorted(transfers, key=lambda t: (t.block_number, t.log_index)):
        last[t.token_id] = t.to_address
    with engine.connect() as conn:
        for token_id in range(3):
            want = last.get(token_id)
            assert erc721_owner(conn, chain, token, token_id) == (
                None if want in (None, B.ZERO) else want
            )


def test_erc721_an_older_chunk_never_overwrites_a_newer_owner(engine):
    chain, token = 5, B.addr(0x721)
    nft = dict(standard=TokenStandard.ERC721, token_id=2**256 - 1)
    early = B.batch(
        chain, 0, 0, transfers=[B.transfer(chain, 0, 3, token, B.ZERO, B.addr(1), 1, **nft)]
    )
    late = B.batch(
        chain,
        1,
        1,
        transfers=[
            B.transfer(chain, 1, 0, token, B.addr(1), B.addr(2), 1, **nft),
            B.transfer(chain, 1, 1, token, B.addr(2), B.addr(3), 1, **nft),
        ],
    )
    write_evm_batch(engine, early)
    write_evm_batch(engine, late)
    write_evm_batch(engine, early)
    with engine.connect() as conn:
        assert erc721_owner(conn, chain, token, 2**256 - 1) == B.addr(3)
    burn = B.batch(
        chain, 2, 2, transfers=[B.transfer(chain, 2, 0, token, B.addr(3), B.ZERO, 1, **nft)]
    )
    write_evm_batch(engine, burn)
    write_evm_batch(engine, late)
    with engine.connect() as conn:
        assert erc721_owner(conn, chain, token, 2**256 - 1) is None
        assert erc721_owner(conn, chain, token, 7) is None


def test_native_balance_is_the_latest_snapshot_at_or_before_the_block(engine):
    chain, a = 6, B.addr(1)
    snaps = [NativeBalance(chain, a, n, 2**256 - 1 - n) for n in (2, 5)]
    write_evm_batch(engine, B.batch(chain, 0, 9, native_balances=snaps))
    with engine.connect() as conn:
        assert native_balance(conn, chain, a, 1) is None  # unknown, not zero
        assert native_balance(conn, chain, a, 2) == 2**256 - 3
        assert native_balance(conn, chain, a, 4) == 2**256 - 3
        assert native_balance(conn, chain, a, 9) == 2**256 - 6
        assert native_balance(conn, chain, a) == 2**256 - 6
        assert native_balance(conn, chain, B.addr(2)) is None


def test_balances_are_exact_beyond_64_bits(engine):
    chain, token = 8, B.addr(0xA20)
    big = 2**255 + 12345
    transfers = [
        B.transfer(chain, 0, 0, token, B.ZERO, B.addr(1), big),
        B.transfer(chain, 1, 0, token, B.addr(1), B.addr(2), big - 1),
        B.transfer(chain, 1, 1, token, B.addr(2), B.addr(1), 3),
    ]
    write_evm_batch(engine, B.batch(chain, 0, 0, transfers=transfers[:1]))
    write_evm_batch(engine, B.batch(chain, 1, 1, transfers=transfers[1:]))
    with engine.connect() as conn:
        assert erc20_balance(conn, chain, token, B.addr(1), 0) == big
        assert erc20_balance(conn, chain, token, B.addr(1), 1) == 4
        assert erc20_balance(conn, chain, token, B.addr(2), 1) == big - 4
        assert erc20_balance(conn, chain, token, B.addr(2), 0) == 0


MANY_TOKENS = [B.addr(0xC000 + n) for n in range(12)]
holdings_specs = st.lists(
    st.tuples(
        st.integers(0, NBLOCKS - 1),
        st.sampled_from(MANY_TOKENS),
        st.sampled_from(HOLDERS),
        st.sampled_from(HOLDERS),
        st.integers(0, 5),  # small values: holders often sell out to exactly zero
        st.none(),
    ),
    max_size=60,
)


@FIXTURE_OK
@given(
    specs=holdings_specs,
    block=st.integers(0, NBLOCKS - 1),
    limit=st.integers(1, 6),
    asked=st.none() | st.sets(st.sampled_from(MANY_TOKENS + [B.addr(0xDEAD)]), max_size=5),
)
def test_holdings_pages_are_the_positive_balances_in_token_order(
    engine, specs, block, limit, asked
):
    """erc20_at pages through exactly the tokens with a positive balance at the block (sold-out
    tokens skipped, however many in a row), in address order, `limit` at a time."""
    chain = next(_chain_ids)
    _write_in_batches(engine, chain, _build(chain, specs), set(), [])
    holder = HOLDERS[1]
    universe = MANY_TOKENS if asked is None else sorted(asked)
    expected = [
        (t, v) for t in sorted(universe) if (v := _expected(specs, holder, t, None, block)) > 0
    ]
    walked: list[tuple[str, int]] = []
    after = None
    with engine.connect() as conn:
        while True:
            page = erc20_at(conn, chain, holder, block, asked, after, limit)
            assert len(page) <= limit
            walked += [(h.token, h.balance) for h in page]
            if len(page) < limit:
                break
            after = (page[-1].token,)
    assert walked == expected


def test_holdings_carry_their_token_info(engine):
    """Each holding carries its token's name, symbol and decimals as the tokens table has them
    (None where a value, or the whole row, is missing), whether the holder's tokens are walked
    or named by the caller."""
    chain = next(_chain_ids)
    a, b, c = MANY_TOKENS[:3]
    holder = HOLDERS[1]
    moves = [B.transfer(chain, 0, i, t, B.ZERO, holder, 5 + i) for i, t in enumerate((a, b, c))]
    write_evm_batch(engine, B.batch(chain, 0, 0, transfers=moves))
    with engine.begin() as conn:
        conn.execute(tokens.delete().where(tokens.c.chain_id == chain))
        conn.execute(
            tokens.insert(),
            [
                {
                    "chain_id": chain,
                    "address": a,
                    "standard": "ERC-20",
                    "name": "A",
                    "symbol": "AA",
                    "decimals": 6,
                },
                {
                    "chain_id": chain,
                    "address": b,
                    "standard": "ERC-20",
                    "name": None,
                    "symbol": "BB",
                    "decimals": None,
                },
            ],
        )
    expected = [
        (a, 5, "A", "AA", 6),
        (b, 6, None, "BB", None),
        (c, 7, None, None, None),
    ]
    with engine.connect() as conn:
        for asked in (None, [c, a, b]):
            got = erc20_at(conn, chain, holder, 0, asked, None, 10)
            assert [
                (h.token, h.balance, h.token_name, h.token_symbol, h.token_decimals) for h in got
            ] == expected
