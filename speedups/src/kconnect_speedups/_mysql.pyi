from collections.abc import Callable, Sequence
from typing import Any, Final

# The kconnect_sdk.LAYOUT_VERSION whose Structs and records PlainCreates builds.
LAYOUT_VERSION: Final[int]

# Column kinds of a RowDecoder plan.
INT: Final[int]
FLOAT: Final[int]
DOUBLE: Final[int]
YEAR: Final[int]
DECIMAL: Final[int]
STRING: Final[int]
ENUM: Final[int]
SET: Final[int]
BIT: Final[int]
DATE: Final[int]
DATETIME2: Final[int]
TIMESTAMP2: Final[int]
TIME2: Final[int]
CALL: Final[int]

ColumnPlan = tuple[
    int,  # kind
    int,  # size: bytes, or the length prefix's bytes (STRING, CALL)
    int,  # param: 1 for signed INT, precision (DECIMAL), fsp (temporal)
    int,  # mode: scale (DECIMAL); DATE 1: days; DATETIME2 1: epoch ms, 2: epoch us
    str | None,  # codec of a STRING's bytes (None: bytes)
    str | None,  # 256-character charmap table of a single-byte codec
    Any,  # labels tuple (ENUM, SET) or callable (DECIMAL's fallback reader, CALL)
    int,  # slot in the row, -1 when not included
    Callable[[Any], Any] | None,  # converter applied to the value
    str,  # column name, for errors
]

class RowDecoder:
    """The compiled decoder of one binlog table map's row images."""

    def __init__(
        self, columns: tuple[ColumnPlan, ...], width: int, decimal: type, where: str
    ) -> None: ...
    def __call__(self, data: bytes, p: int, end: int, /) -> list[list[Any]]: ...

class PlainCreates:
    """The SourceRecords of inserted rows with a one-column key (the MySQL connector's
    streaming loop), made as its Python loop makes them."""

    def __init__(
        self, struct_type: type, record_type: type, no_headers: object, row_field: int
    ) -> None: ...
    def __call__(
        self,
        out: list[Any],
        rows: list[list[Any]],
        start: int,
        n: int,
        base_off: dict[str, Any],
        base_source: list[Any],
        schemas: tuple[Any, Any, Any, Any],
        key_index: int,
        topic: str,
        partition: dict[str, Any],
        now: tuple[int, int, int],
        /,
    ) -> None: ...

def text_days(fallback: Callable[[str | None], int | None], v: str | None, /) -> int | None: ...
def text_millis(fallback: Callable[[str | None], int | None], v: str | None, /) -> int | None: ...
def text_micros(fallback: Callable[[str | None], int | None], v: str | None, /) -> int | None: ...

# What TextRows.read_many stops at (the generated reader's codes in kconnect_connector_mysql).
STOP_SPECIAL: Final[int]  # an EOF or error packet
STOP_LONG: Final[int]  # a packet of 0xFFFFFF bytes: a row continued in the next packet
STOP_BAD_SEQUENCE: Final[int]

class TextRows:
    """The row reader of one text-protocol result set (the MySQL connector's snapshot)."""

    def __init__(
        self,
        columns: Sequence[tuple[str | None, Callable[[Any], Any] | None]],
        then: Sequence[Callable[[Any], Any] | None],
    ) -> None: ...
    def read_many(
        self, d: bytes, p: int, n: int, seq: int, append: Callable[[list[Any]], object], /
    ) -> tuple[int, int, int]: ...
    def read_one(self, d: bytes, /) -> list[Any]: ...
