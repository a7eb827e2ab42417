"""Optional compiled fast paths for kconnect's converters and connectors.

``kconnect_speedups._json`` holds the JSON converter's: :class:`FlatEncoder` writes the
JSON text of many Structs of one flat schema, and :func:`decode_schemaless` runs the
schemaless batch decode loop, reading the usual JSON with its own parser and the rest
with ``orjson.loads``. kconnect-converter-json uses them when this package is
installed (and ``KCONNECT_SPEEDUPS`` is not ``0``), and its pure-Python code otherwise;
both give the same bytes.

``kconnect_speedups._mysql`` holds kconnect-connector-mysql's: :class:`RowDecoder` reads
the binlog row images of one table map from a per-column plan into the same values the
connector's generated Python decoder gives, and :class:`PlainCreates` builds the change
events of inserted rows as its Python loop does.

``kconnect_speedups._acks`` holds the runtime's: :class:`AckCounter` counts a source
batch's successful delivery reports in C and passes only a report with an error to Python.
"""

from __future__ import annotations

from ._acks import AckCounter
from ._json import FlatEncoder, decode_schemaless, format_double
from ._mysql import PlainCreates, RowDecoder

__all__ = [
    "AckCounter",
    "FlatEncoder",
    "PlainCreates",
    "RowDecoder",
    "decode_schemaless",
    "format_double",
]
