"""Fixtures of the S3 sink tests; the helpers live in ``s3_testing`` beside this file."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Tests import their helpers as ``s3_testing`` (pytest runs with --import-mode=importlib,
# which does not put test directories on sys.path).
sys.path.insert(0, str(Path(__file__).parent))

from s3_testing import Bucket, new_bucket


@pytest.fixture
def bucket(kc_s3: Any) -> Iterator[Bucket]:
    """A new, empty bucket on the session's S3 endpoint; started tasks are stopped after."""
    b = new_bucket(kc_s3)
    yield b
    for task in b.tasks:
        task.stop()
