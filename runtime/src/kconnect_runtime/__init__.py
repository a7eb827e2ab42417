"""kconnect runtime: the worker that runs kconnect plugins (Kafka Connect for Python).

Operators run it from the command line::

    kconnect standalone config/connect-standalone.properties config/connect-file-source.properties

The Python API is for embedding and tests; the CLI and the REST API are the stable surface.
Plugin isolation's pieces (``install_plugin`` makes a plugin.path location; the isolated
task proxies, the host script and its record-batch codec) are exported for tools such as
kconnect-testkit that drive plugins in their own locations.
"""

from __future__ import annotations

from kconnect_sdk import distribution_version

__version__ = distribution_version(__name__)

from ._distributed import Distributed
from ._embedded_broker import EmbeddedBroker  # after __version__, which _rest uses
from ._isolation import HOST_SCRIPT, IsolatedSinkTask, IsolatedSourceTask, location_python
from ._plugin_host import pack_records, unpack_records
from ._plugins_cli import install_plugin
from ._properties import load_connector_config, load_properties, parse_properties
from ._registry import PluginDesc, PluginKind, PluginRegistry
from ._standalone import Standalone
from ._worker import Worker

__all__ = [
    "HOST_SCRIPT",
    "Distributed",
    "EmbeddedBroker",
    "IsolatedSinkTask",
    "IsolatedSourceTask",
    "PluginDesc",
    "PluginKind",
    "PluginRegistry",
    "Standalone",
    "Worker",
    "__version__",
    "install_plugin",
    "load_connector_config",
    "load_properties",
    "location_python",
    "pack_records",
    "parse_properties",
    "unpack_records",
]
