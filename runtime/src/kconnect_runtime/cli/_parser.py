"""How every ``kconnect`` sub-command is declared."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

__all__ = ["command"]


def command(
    sub: Any, name: str, help_text: str, examples: Sequence[str], **kwargs: Any
) -> argparse.ArgumentParser:
    """A sub-command whose ``--help`` says what it does and shows how it is used."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description=help_text[0].upper() + help_text[1:] + ".",
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )
    return parser
