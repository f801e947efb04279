"""`avadata bench ingest` compares the medians of its rounds (bench/ingest.py)."""

from __future__ import annotations

from collections.abc import Callable

from avadata.bench.ingest import Result, _median, _take_turns, report


def test_the_median_round_is_the_middle_one_or_the_lower_middle() -> None:
    assert _median([(9.0, "a"), (7.0, "b"), (8.0, "c")]) == (8.0, "c")
    assert _median([(9.0, "a"), (7.0, "b"), (8.0, "c"), (6.0, "d")]) == (7.0, "b")
    assert _median([(5.0, "x")]) == (5.0, "x")


def test_the_ratio_is_of_the_medians_and_every_round_is_listed() -> None:
    raw = Result("raw", 6.0, 2051, 100_000, 100.0, rounds=(6.5, 6.0, 5.5))
    ours = Result("ours", 8.0, 2051, 100_000, 400.0, rollup_seconds=0.5, rounds=(9.0, 8.0, 7.0))
    both = {"raw pull": raw, "avadata sqlite": ours}
    text = report(both, machine="m", command="c", build_seconds=1)
    assert "**0.75x**" in text  # 6.0 / 8.0
    assert "| 9.0, 8.0, 7.0 |" in text and "| 6.5, 6.0, 5.5 |" in text


def test_both_engines_are_reported_with_their_ratio() -> None:
    raw = Result("raw", 6.0, 2051, 100_000, 100.0, rounds=(6.0,))
    lite = Result("avadata index (sqlite)", 8.0, 2051, 100_000, 400.0, rounds=(8.0,))
    pg = Result("avadata index (postgresql)", 10.0, 2051, 100_000, 300.0, 0.4, rounds=(10.0,))
    both = {"raw pull": raw, "avadata sqlite": lite, "avadata postgresql": pg}
    text = report(both, machine="m", command="c", build_seconds=1)
    assert "(sqlite) / raw pull (medians): **0.75x**" in text
    assert "(postgresql) / raw pull (medians): **0.60x**" in text
    assert "PostgreSQL / SQLite ingest" in text and "**0.80x**" in text  # 8.0 / 10.0
    assert "0.4 s of 10.0 s" in text  # the rollup share is the named store's


def test_contenders_take_turns_each_round_starting_one_further() -> None:
    order: list[str] = []

    def step(name: str) -> Callable[[int], tuple[float, ...]]:
        def run(n: int) -> tuple[float, ...]:
            order.append(f"{name}{n}")
            return (float(n),)

        return run

    runs = _take_turns({k: step(k) for k in "abc"}, 4)
    assert order == "a0 b0 c0 b1 c1 a1 c2 a2 b2 a3 b3 c3".split()
    assert runs["b"] == [(0.0,), (1.0,), (2.0,), (3.0,)]


def test_the_api_report_names_the_store_it_measured() -> None:
    from avadata.bench.api_load import Result as Row
    from avadata.bench.api_load import report as api_report

    names = ["trivial", "transactions", "transactions page 10", "listErc20 (hot address)"]
    rows = [Row(n, 1000.0, 1.0, 2.0, 0) for n in [*names, "listErc20 page 10"]]
    text = api_report(rows, 4, 1_000, 10, 5.0, "PostgreSQL 15.4")
    assert text.startswith("Store: PostgreSQL 15.4, 1,000 transactions")


def test_a_bench_command_names_its_store_password_masked() -> None:
    from avadata.cli.bench import _db_option

    assert _db_option(None) == ""
    assert _db_option("postgresql://u:secret@h/db") == " --db postgresql://u:***@h/db"


def test_two_stores_compare_endpoint_by_endpoint_in_alternating_order() -> None:
    from avadata.bench.api_load import Result as Row
    from avadata.bench.api_load import _turns, compare

    assert [_turns(2, k) for k in range(3)] == [[0, 1], [1, 0], [0, 1]]
    first = [Row("trivial", 9000.0, 1, 2, 0), Row("a", 1000.0, 1, 2, 0), Row("b", 500.0, 1, 2, 0)]
    second = [Row("trivial", 9000.0, 1, 2, 0), Row("a", 1200.0, 1, 2, 0), Row("b", 900.0, 1, 2, 0)]
    text = compare(first, second)
    assert "| a | 1,000 | 1,200 | 1.20x |" in text and "| b | 500 | 900 | 1.80x |" in text
    # The lists' median (the trivial endpoint left out): (1.2 + 1.8) / 2.
    assert "**1.50x**" in text and "within 1.5x (issue 25): yes" in text
    slower = [Row(r.name, r.rps * 1.1, 1, 2, 0) for r in second]
    assert "within 1.5x (issue 25): NO" in compare(first, slower)
