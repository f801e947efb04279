"""The metrics rollup's SQL: the writing half applied in the indexer's write transaction
(`rollup_writer`, `membership`, `last_seen`, `scope_rows`), the rebuild from stored rows
(`rebuild`, `rollup_inputs`), the series reads behind the Metrics API (`series_reads`) and
the driver SQL of the hot statements (`driver_sql`). The arithmetic is the pure `metrics`.
"""
