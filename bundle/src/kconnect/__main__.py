"""``python -m kconnect``: the ``kconnect`` command."""

from kconnect_runtime.cli import main

raise SystemExit(main())
