"""The plugin host and its wire codec.

``_plugin_host.py`` runs as a script (``python -I _plugin_host.py``) in a plugin location's venv, so it
imports only the standard library and ``kconnect_sdk``; the runtime imports the same module
for the record-batch codec, so both ends of the protocol share one implementation.
"""

from __future__ import annotations

from ._plugin_host import (
    PROTOCOL_VERSION,
    pack_records,
    pack_values,
    pack_values_blob,
    plugin_capabilities,
    unpack_records,
    unpack_values,
)

__all__ = [
    "PROTOCOL_VERSION",
    "pack_records",
    "pack_values",
    "pack_values_blob",
    "plugin_capabilities",
    "unpack_records",
    "unpack_values",
]
