#!/usr/bin/env bash
# Apache Kafka's Connect quickstart with kconnect: installs the workspace, then moves a sample
# file through Kafka (an embedded development broker) with the config/ files, and stops.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
source .ci/ensure-uv.sh
uv sync --all-packages --locked --quiet
uv run --no-sync kconnect quickstart "$@"
