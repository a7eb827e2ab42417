"""``python -m kconnect_testkit.java_jars``: fetch the pinned Kafka and Debezium jars now.

Prints the folders. Tests fetch them on first use anyway; this lets a CI script or a
developer pay for the download once, before tests start in parallel.
"""

from __future__ import annotations

import sys

from ._java import JavaUnavailable, java_jars


def main() -> int:
    for kit in ("kafka", "debezium"):
        try:
            print(f"{kit}: {java_jars(kit)}")
        except JavaUnavailable as exc:
            print(f"kconnect-testkit: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
