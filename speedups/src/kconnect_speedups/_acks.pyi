from collections.abc import Callable
from typing import Any

class AckCounter:
    """An on_delivery callable: counts successful delivery reports down from ``remaining``
    and passes a report with an error to ``on_error(error, message)``."""

    remaining: int
    @property
    def on_error(self) -> Callable[[Any, Any], None]: ...
    def __init__(self, remaining: int, on_error: Callable[[Any, Any], None]) -> None: ...
    def __call__(self, error: Any, message: Any, /) -> None: ...
