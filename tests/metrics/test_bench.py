"""`avadata bench metrics`' logic at a tiny size: it writes with the rollup on, times every case,
and its report states each target's verdict with the figures, machine and command."""

from __future__ import annotations

from pathlib import Path

from avadata.bench import metrics
from avadata.bench.machine import write_section


def test_run_and_report(tmp_path: Path) -> None:
    result = metrics.run(
        txs=2_000,
        days=3,
        accounts=100,
        rounds=3,
        db=f"sqlite:///{tmp_path / 'b.db'}",
        in_process=True,
    )
    assert result.written.txs == 2_000 and 0 < result.written.share < 1
    assert all(len(xs) == 3 for xs in result.latency.samples_ms.values())
    # The P-chain's series are timed too (each answered 200: `latency` raises otherwise).
    cases = result.latency.samples_ms
    assert {"staking validatorCount x100", "L1 validationRunwaySeconds"} <= cases.keys()
    assert result.written.pchain_s > 0
    text = metrics.report(result, rounds=3, machine="test machine", command="avadata bench metrics")
    assert "metric requests p99 under 10 ms: " in text
    assert "rollup share of the store write alone: " in text and "bench ingest" in text
    assert "Machine: test machine" in text and "Command: `avadata bench metrics`" in text
    # The section replaces itself, leaving the others alone.
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## other\n\nkept\n")
    write_section(doc, "avadata bench metrics", text)
    write_section(doc, "avadata bench metrics", text)
    assert doc.read_text().count("## avadata bench metrics") == 1 and "kept" in doc.read_text()
