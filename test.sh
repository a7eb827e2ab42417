#!/usr/bin/env bash
# The whole test suite, as CI runs it: lint, format, types, import contracts, then the tests
# of every package. Extra arguments go to pytest (e.g. ./test.sh -k json -x).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
source .ci/ensure-uv.sh
uv sync --all-packages --locked --quiet
uv run --no-sync ruff check .
uv run --no-sync ruff format --check .
uv run --no-sync mypy
uv run --no-sync lint-imports
uv run --no-sync pytest "$@"
