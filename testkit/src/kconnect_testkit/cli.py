"""kconnect-testkit command line: ``kconnect-testkit verify <wheel|dir|requirement>``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._verify import VerifyError, verify

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kconnect-testkit`` script; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="kconnect-testkit", description="Conformance checks for kconnect plugins."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    cmd = commands.add_parser(
        "verify",
        help="install a plugin into a temporary venv and run every applicable suite",
        description="Install a plugin (a wheel, a source directory or a requirement) into a "
        "temporary venv, run the conformance suites for every plugin it declares, print a "
        "pass/fail table and exit non-zero on failure.",
    )
    cmd.add_argument("target", help="a wheel file, a project directory or a requirement")
    cmd.add_argument("--report", type=Path, default=None, help="write report.md and junit.xml here")
    cmd.add_argument("--strict", action="store_true", help="ignore the plugin's waivers")
    cmd.add_argument(
        "--isolated",
        action="store_true",
        help="install into a plugin.path location of its own and drive the plugins through the "
        "runtime's worker-subprocess protocol",
    )
    cmd.add_argument(
        "-q", "--quiet", action="store_true", help="no progress lines while the checks run"
    )
    args = parser.parse_args(argv)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        code, table = verify(
            args.target,
            report_dir=args.report,
            strict=args.strict,
            isolated=args.isolated,
            progress=(lambda line: None) if args.quiet else progress,
        )
    except VerifyError as exc:
        print(f"kconnect-testkit verify: {exc}", file=sys.stderr)
        return 2
    print(table)
    if args.report is not None:
        print(f"\nreports: {args.report / 'report.md'}, {args.report / 'junit.xml'}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
