"""kconnect-testkit command line."""

from __future__ import annotations


def main() -> int:
    raise SystemExit("kconnect-testkit verify is not built yet")
