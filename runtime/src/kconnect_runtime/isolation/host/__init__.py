"""The plugin host and its wire codec.

``_plugin_host.py`` runs in a plugin location's venv, so it imports only the standard
library and ``kconnect_sdk``; ``_codec.py`` is the protocol's wire codec, which the host
loads beside itself and the runtime imports from here, so both ends of the protocol share
one implementation.
"""

from __future__ import annotations

from ._codec import (
    PROTOCOL_VERSION,
    pack_records,
    pack_values,
    pack_values_blob,
    unpack_records,
    unpack_values,
)
from ._plugin_host import plugin_capabilities

__all__ = [
    "PROTOCOL_VERSION",
    "pack_records",
    "pack_values",
    "pack_values_blob",
    "plugin_capabilities",
    "unpack_records",
    "unpack_values",
]
