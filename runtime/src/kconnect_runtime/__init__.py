"""kconnect runtime: the worker that runs kconnect plugins (Kafka Connect for Python).

Operators run it from the command line::

    kconnect standalone config/connect-standalone.properties config/connect-file-source.properties

The Python API is for embedding and tests; the CLI and the REST API are the stable surface.
"""

from __future__ import annotations

from kconnect_sdk import distribution_version

__version__ = distribution_version(__name__)

from ._distributed import Distributed
from ._embedded_broker import EmbeddedBroker  # after __version__, which _rest uses
from ._properties import load_connector_config, load_properties, parse_properties
from ._registry import PluginDesc, PluginKind, PluginRegistry
from ._standalone import Standalone
from ._worker import Worker

__all__ = [
    "Distributed",
    "EmbeddedBroker",
    "PluginDesc",
    "PluginKind",
    "PluginRegistry",
    "Standalone",
    "Worker",
    "__version__",
    "load_connector_config",
    "load_properties",
    "parse_properties",
]
