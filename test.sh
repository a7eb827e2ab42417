#!/usr/bin/env bash
# The whole test suite, as CI runs it: lint, format, types, import contracts, then the tests
# of every package. Extra arguments go to pytest (e.g. ./test.sh -k json -x) and then run in
# one pytest session; with none, the suite runs as two pytest sessions side by side (below).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
source .ci/ensure-uv.sh
source .ci/ensure-services.sh
# Bytecode compiled once: with PYTHONDONTWRITEBYTECODE=1 set (as on our CI machines) every
# process the tests start (workers, plugin hosts, Spark's Python workers) would otherwise
# compile PySpark, pandas, FastAPI and ours from source again (about 1 s of CPU each).
uv sync --all-packages --locked --quiet --compile-bytecode
uv run --no-sync python -m compileall -q -j 0 sdk/src runtime/src converters/*/src \
  connectors/*/src transforms/src testkit/src speedups/src >/dev/null
uv run --no-sync ruff check .
uv run --no-sync ruff format --check .
uv run --no-sync mypy
uv run --no-sync lint-imports
# Apache Kafka, the Java Connect worker and Debezium, resolved once from Maven Central into the
# testkit's cache (both pytest sessions below would otherwise wait on the same download).
uv run --no-sync python -m kconnect_testkit.java_jars
if [ "$#" -gt 0 ]; then
  exec uv run --no-sync pytest "$@"
fi

# Most of the suite's wall time is spent waiting on services (group joins, restarts, kills,
# Spark jobs): in one session a full run used about 9 minutes of CPU in 30 minutes. So the
# tests run as two pytest sessions at once, each with its own broker, S3 endpoint, schema
# registry, private MariaDB, PostgreSQL database and Spark session (the testkit's session
# fixtures), split so that both take about as long (on Apache Kafka: 28 minutes for the
# runtime's tests and 28 for the packages' before the crash and DataFrame tests, which
# is why those two groups sit on different sides). The second session's output follows
# the first's.
second=(
  sdk/tests converters connectors transforms/tests testkit/tests speedups/tests compat
  runtime/tests/test_crash_suite.py runtime/tests/test_crash_exactly_once.py
)
first=(runtime/tests)
for path in "${second[@]}"; do
  case "$path" in runtime/tests/*) first+=("--ignore=$path") ;; esac
done
log="$(mktemp -t kconnect-tests-XXXXXX.log)"
uv run --no-sync pytest -p no:cacheprovider --durations=15 "${second[@]}" >"$log" 2>&1 &
other=$!
status=0
uv run --no-sync pytest --durations=15 "${first[@]}" || status=$?
other_status=0
wait "$other" || other_status=$?
echo
echo "=== second pytest session: ${second[*]} (exit $other_status) ==="
cat "$log"
rm -f "$log"
if [ "$status" -ne 0 ]; then exit "$status"; fi
exit "$other_status"
