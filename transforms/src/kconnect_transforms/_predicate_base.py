"""What the Apache predicates share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ParsedConfig,
    Predicate,
)

from ._util import RUNTIME_KEYS, R

__all__ = []


class _BasePredicate(Predicate[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef()

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        props = {k: v for k, v in configs.items() if k not in RUNTIME_KEYS}
        self._configure(self.CONFIG_DEF.parse(props))

    def _configure(self, config: ParsedConfig) -> None:
        """Keep what ``test`` needs."""
