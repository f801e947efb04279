"""`avadata bench ingest` compares the medians of its rounds (bench/ingest.py)."""

from __future__ import annotations

from avadata.bench.ingest import Result, _median, report


def test_the_median_round_is_the_middle_one_or_the_lower_middle() -> None:
    assert _median([(9.0, "a"), (7.0, "b"), (8.0, "c")]) == (8.0, "c")
    assert _median([(9.0, "a"), (7.0, "b"), (8.0, "c"), (6.0, "d")]) == (7.0, "b")
    assert _median([(5.0, "x")]) == (5.0, "x")


def test_the_ratio_is_of_the_medians_and_every_round_is_listed() -> None:
    raw = Result("raw", 6.0, 2051, 100_000, 100.0, rounds=(6.5, 6.0, 5.5))
    ours = Result("ours", 8.0, 2051, 100_000, 400.0, rollup_seconds=0.5, rounds=(9.0, 8.0, 7.0))
    text = report({"raw pull": raw, "avadata": ours}, machine="m", command="c", build_seconds=1)
    assert "**0.75x**" in text  # 6.0 / 8.0
    assert "| 9.0, 8.0, 7.0 |" in text and "| 6.5, 6.0, 5.5 |" in text


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
