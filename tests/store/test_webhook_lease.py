"""The delivery lease on both engines: one holder at a time, renewed by its holder only,
taken over once expired, given up on release; and many takers racing on their own engines
(threads, separate connections) never both win. Truth: the rules themselves, checked
against what the takers were told and what the row holds."""

from __future__ import annotations

import threading
import time

from sqlalchemy import Engine

from avadata.store.engine import make_engine
from avadata.store.webhooks import lease

NAME = lease.DELIVERY


def test_one_holder_renewal_expiry_and_release(engine: Engine) -> None:
    assert lease.holder(engine, NAME) is None
    assert lease.take(engine, NAME, "a", 30)
    assert not lease.take(engine, NAME, "b", 30)  # held: b waits
    assert lease.take(engine, NAME, "a", 30)  # renewed by its holder
    held = lease.holder(engine, NAME)
    assert held is not None and held[0] == "a"
    assert abs(held[1] - (time.time() + 30) * 1000) < 5000
    with engine.connect() as conn:
        assert lease.held(conn, NAME, "a") and not lease.held(conn, NAME, "b")

    assert lease.take(engine, NAME, "a", 0.2)  # a short renewal, then a's death
    time.sleep(0.4)
    with engine.connect() as conn:
        assert not lease.held(conn, NAME, "a")
    assert lease.take(engine, NAME, "b", 30)  # expired: b takes over
    assert not lease.take(engine, NAME, "a", 30)  # a came back: b holds it now

    lease.release(engine, NAME, "a")  # not a's to give up: nothing changes
    assert not lease.take(engine, NAME, "c", 30)
    lease.release(engine, NAME, "b")
    assert lease.take(engine, NAME, "c", 30)


def test_racing_takers_one_wins(engine: Engine) -> None:
    """Eight takers, each on its own engine, released together: exactly one wins, and the
    row names it. Again after the winner releases, and on a lease that expired."""
    url = engine.url.render_as_string(hide_password=False)
    engines = [make_engine(url) for _ in range(8)]
    try:
        for round_ in range(3):
            wins: list[str] = []
            barrier = threading.Barrier(len(engines))

            def race(
                i: int,
                eng: Engine,
                r: int = round_,
                barrier: threading.Barrier = barrier,
                wins: list[str] = wins,
            ) -> None:
                barrier.wait()
                if lease.take(eng, NAME, f"t{r}-{i}", 0.3 if r == 1 else 30):
                    wins.append(f"t{r}-{i}")

            threads = [threading.Thread(target=race, args=(i, e)) for i, e in enumerate(engines)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            assert len(wins) == 1, (round_, wins)
            held = lease.holder(engine, NAME)
            assert held is not None and held[0] == wins[0]
            if round_ == 0:
                lease.release(engine, NAME, wins[0])
            else:
                time.sleep(0.5)  # round 1's lease expires; round 2 races for an expired one
    finally:
        for e in engines:
            e.dispose()
