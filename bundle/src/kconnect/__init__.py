"""kconnect in one install: ``pip install 'kconnect[jdbc]'``.

This distribution holds no code of its own: it brings the worker (``kconnect-runtime``),
the embedded development broker, the converters and transforms Kafka's configs name, and
each catalogue plugin as an extra. ``python -m kconnect`` is the ``kconnect`` command.
"""

from importlib.metadata import version as _version

__all__ = ["__version__"]

__version__ = _version("kconnect")
