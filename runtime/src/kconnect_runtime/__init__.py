"""kconnect runtime: the worker that runs kconnect plugins (Kafka Connect for Python).

Operators run it from the command line::

    kconnect standalone config/connect-standalone.properties config/connect-file-source.properties

The Python API is for embedding and tests; the CLI and the REST API are the stable surface.
Plugin isolation's pieces (``install_plugin`` makes a plugin.path location; the isolated
task proxies, the host script and its record-batch codec) are exported for tools such as
kconnect-testkit that drive plugins in their own locations; :mod:`kconnect_runtime.isolation`
holds them all.

Where things are (each folder is a layer; a layer imports only the layers below it)::

    cli/        the ``kconnect`` command
    modes/      standalone, distributed, the embedded development broker
    rest/       the REST API (FastAPI), basic auth, Prometheus metrics
    worker/     the control plane: connectors, task configs, restarts, offsets, validation
    engine/     the engine contract, ``local`` (threads) and ``spark/`` (driver, executor)
    tasks/      source and sink task pipelines and their converters and transform chains
    errors/     ``errors.*``: retries, tolerance, error log, dead letter queue
    storage/    offsets, configs, target states and statuses (memory, file, Kafka topics)
    config/     config definitions, config providers, properties files
    plugins/    discovery, descriptors, versions, name resolution, ``plugins install``
    isolation/  plugin.path locations in subprocesses: proxies, process, ``host/`` and codec
    status, metrics, logcontext   leaves every layer may use
"""

from __future__ import annotations

from kconnect_sdk import PluginKind

from ._version import __version__
from .config import load_connector_config, load_properties, parse_properties
from .isolation import (
    HOST_SCRIPT,
    IsolatedSinkTask,
    IsolatedSourceTask,
    location_python,
    pack_records,
    unpack_records,
)
from .modes import Distributed, EmbeddedBroker, Standalone
from .plugins import PluginDesc, PluginRegistry, install_plugin
from .worker import Worker

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
