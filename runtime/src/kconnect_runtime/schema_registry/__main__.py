"""``python -m kconnect_runtime.schema_registry schema-registry.properties``."""

from __future__ import annotations

import sys

from ._server import main

if __name__ == "__main__":
    sys.exit(main())
