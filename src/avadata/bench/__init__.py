"""`avadata bench ...`: measurements recorded in docs/benchmarks.md, never timed unit tests."""
