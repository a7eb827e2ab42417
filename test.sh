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
# tests run as three pytest sessions at once, each with its own broker, S3 endpoint, schema
# registry, private MariaDB, PostgreSQL database and Spark session (the testkit's session
# fixtures), split so that they take about as long: the runtime's tests; the SDK, converters,
# transforms, testkit, speedups, the differential suite and the crash suites; the catalogue's
# connectors with the multi-worker distributed tests. The other sessions' output follows the
# first's.
second=(
  sdk/tests converters transforms/tests testkit/tests speedups/tests compat
  runtime/tests/test_crash_suite.py runtime/tests/test_crash_exactly_once.py
)
third=(connectors bundle/tests runtime/tests/test_distributed_group.py)
first=(runtime/tests)
for path in "${second[@]}" "${third[@]}"; do
  case "$path" in runtime/tests/*) first+=("--ignore=$path") ;; esac
done
second_log="$(mktemp -t kconnect-tests-XXXXXX.log)"
third_log="$(mktemp -t kconnect-tests-XXXXXX.log)"
uv run --no-sync pytest -p no:cacheprovider --durations=15 "${second[@]}" >"$second_log" 2>&1 &
second_pid=$!
uv run --no-sync pytest -p no:cacheprovider --durations=15 "${third[@]}" >"$third_log" 2>&1 &
third_pid=$!
status=0
uv run --no-sync pytest --durations=15 "${first[@]}" || status=$?
second_status=0
wait "$second_pid" || second_status=$?
third_status=0
wait "$third_pid" || third_status=$?
echo
echo "=== second pytest session: ${second[*]} (exit $second_status) ==="
cat "$second_log"
echo
echo "=== third pytest session: ${third[*]} (exit $third_status) ==="
cat "$third_log"
rm -f "$second_log" "$third_log"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$second_status" -ne 0 ]; then exit "$second_status"; fi
exit "$third_status"
