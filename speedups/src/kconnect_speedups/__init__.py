"""Optional compiled fast paths for kconnect's converters.

``kconnect_speedups._json`` holds the JSON converter's: :class:`FlatEncoder` writes the
JSON text of many Structs of one flat schema, and :func:`decode_schemaless` runs the
schemaless batch decode loop, reading the usual JSON with its own parser and the rest
with ``orjson.loads``. kconnect-converter-json uses them when this package is
installed (and ``KCONNECT_SPEEDUPS`` is not ``0``), and its pure-Python code otherwise;
both give the same bytes.
"""

from __future__ import annotations

from ._json import FlatEncoder, decode_schemaless, format_double

__all__ = ["FlatEncoder", "decode_schemaless", "format_double"]
