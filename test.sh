#!/usr/bin/env bash
# The whole test suite, as CI runs it: lint, format, types, import contracts, then the tests
# of every package. Extra arguments go to pytest (e.g. ./test.sh -k json -x) and then run in
# one pytest session; with none, the suite runs as three pytest sessions side by side (below).
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
# testkit's cache (the pytest sessions below would otherwise wait on the same download).
uv run --no-sync python -m kconnect_testkit.java_jars
if [ "$#" -gt 0 ]; then
  exec uv run --no-sync pytest "$@"
fi

# Most of the suite's wall time is spent waiting on services (group joins, restarts, kills,
# Spark jobs, MirrorMaker's checkpoint intervals): in one session a full run used about 9
# minutes of CPU in 30 minutes. So the tests run as three pytest sessions at once, each with
# its own broker, S3 endpoint, schema registry, private MariaDB, PostgreSQL database and Spark
# session (the testkit's session fixtures), split so that they take about as long: the
# runtime's tests; the SDK, converters, transforms, testkit, speedups, the differential
# suite, the crash suites, the standalone Spark cluster's tests and, last, the benchmarks'
# smoke run; the catalogue's connectors (MirrorMaker's two-cluster tests among them) with
# the multi-worker distributed tests. (A fourth session, tried twice, even started
# four minutes late, loaded two cores so much that brokers took over 90 s to start and
# MirrorMaker's checkpoints missed their deadlines.) A path listed for one session is left
# out of any other session whose folder holds it. The other sessions' output follows the
# first's.
sessions=(
  "runtime/tests"
  "sdk/tests converters transforms/tests testkit/tests speedups/tests compat
   runtime/tests/test_crash_suite.py runtime/tests/test_crash_exactly_once.py
   runtime/tests/test_spark_cluster.py runtime/tests/test_bench_smoke.py"
  "connectors bundle/tests runtime/tests/test_distributed_group.py"
)
session_args() {  # the pytest paths of session $1, with the other sessions' paths ignored
  local own="$1" i path other
  read -r -a args <<<"$(echo ${sessions[$own]})"
  for i in "${!sessions[@]}"; do
    [ "$i" -eq "$own" ] && continue
    for other in ${sessions[$i]}; do
      for path in ${sessions[$own]}; do
        case "$other" in "$path"/*) args+=("--ignore=$other") ;; esac
      done
    done
  done
}
pids=()
logs=()
for i in "${!sessions[@]}"; do
  [ "$i" -eq 0 ] && continue
  session_args "$i"
  logs[$i]="$(mktemp -t kconnect-tests-XXXXXX.log)"
  uv run --no-sync pytest -p no:cacheprovider --durations=15 "${args[@]}" >"${logs[$i]}" 2>&1 &
  pids[$i]=$!
done
session_args 0
status=0
uv run --no-sync pytest --durations=15 "${args[@]}" || status=$?
for i in "${!pids[@]}"; do
  session_status=0
  wait "${pids[$i]}" || session_status=$?
  echo
  echo "=== pytest session $((i + 1)): $(echo ${sessions[$i]}) (exit $session_status) ==="
  cat "${logs[$i]}"
  rm -f "${logs[$i]}"
  if [ "$status" -eq 0 ]; then status=$session_status; fi
done
exit "$status"
