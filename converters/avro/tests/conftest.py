"""Test setup for the Avro converter.

The converter is imported first: it imports confluent-kafka's registry client with authlib's
import-time deprecation warning silenced (authlib installs an "always" filter for it). This
folder goes on ``sys.path`` so the pipeline tests' connector is importable by the runtime as
``_avro_source:OrderSource``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import kconnect_converter_avro  # noqa: F401

sys.path.insert(0, str(Path(__file__).parent))
