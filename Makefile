# Every step lives in scripts/; these targets only name them.
.PHONY: all setup up test check fmt
all: test

setup:
	scripts/setup.sh

up:
	scripts/up.sh

test:
	scripts/test.sh

check: setup
	.venv/bin/ruff check src tests
	.venv/bin/ruff format --check src tests
	.venv/bin/mypy

fmt: setup
	.venv/bin/ruff format src tests
	.venv/bin/ruff check --fix src tests
