from collections.abc import Callable, Sequence
from typing import Any, Final

# The kconnect_sdk.LAYOUT_VERSION this module reads Structs in.
LAYOUT_VERSION: Final[int]

class FlatEncoder:
    """JSON text of many Structs of one schema (flat fields, bytes and decimals through
    a Python function, nested structs through their own encoder)."""

    def __init__(
        self,
        schema: object,
        keys: tuple[bytes, ...],
        kinds: tuple[int, ...],
        nullable: tuple[bool, ...],
        struct_type: type,
        defaults: tuple[bytes | None, ...] | None = None,
        extras: tuple[Any, ...] | None = None,
    ) -> None: ...
    def encode(
        self, structs: Sequence[Any], prefix: bytes | None = None, /
    ) -> list[bytes] | None: ...
    def encode_items(
        self, items: Sequence[tuple[Any, Any, Any]], prefix: bytes | None = None, /
    ) -> list[bytes | None] | None: ...

def format_double(value: float, /) -> bytes: ...
def screen(texts: Sequence[bytes], /) -> int: ...
def encode_schemaless(
    items: Sequence[tuple[Any, Any, Any]],
    dumps: Callable[..., bytes],
    default: Callable[[Any], Any],
    option: int,
    /,
) -> tuple[list[bytes], int] | None: ...
def short_double(value: float, /) -> bytes | None: ...
def decode_schemaless(
    items: Sequence[tuple[str, bytes | None]],
    loads: Callable[[bytes], Any],
    sv_type: type[Any],
    null_sv: Any,
    long_loads: Callable[[bytes], Any],
    /,
) -> list[Any]: ...
def has_non_finite(value: Any, /) -> bool: ...
def parse(data: bytes, default: Any, parse_float: Callable[[str], Any] | None = None, /) -> Any: ...
def read_payloads(
    datas: Sequence[Any],
    prefix: bytes,
    loads: Callable[[bytes], Any],
    parse_float: Callable[[str], Any] | None = None,
    tombstone: Any = None,
    /,
) -> list[Any] | None: ...
