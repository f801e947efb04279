"""The metrics stage, pure: bucket arithmetic, the 17-metric catalog, the rollup of a batch,
scope keys and the series arithmetic. No I/O and no store import: the fetch process runs
`rollup.changes` beside decoding. The rollup tables' reads and writes are `store/metrics/`.
"""
