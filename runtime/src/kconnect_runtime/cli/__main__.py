"""``python -m kconnect_runtime.cli``: the ``kconnect`` command."""

from __future__ import annotations

import sys

from ._main import main

sys.exit(main())
