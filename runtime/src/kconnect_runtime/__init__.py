"""kconnect runtime: the worker that runs kconnect plugins (Kafka Connect for Python).

Operators run it from the command line::

    kconnect standalone config/connect-standalone.properties config/connect-file-source.properties

The Python API is for embedding and tests; the CLI and the REST API are the stable surface.
Plugin isolation's pieces (``install_plugin`` makes a plugin.path location; the isolated
task proxies, the host script and its record-batch codec) are exported for tools such as
kconnect-testkit that drive plugins in their own locations (also from the public
:mod:`kconnect_runtime.isolation` and :mod:`kconnect_runtime.plugins`).

Where things are (each folder is a layer; a layer imports only the layers below it)::

    cli/        the ``kconnect`` command
    modes/      standalone, distributed, the embedded development broker
    schema_registry/  the ``kconnect schema-registry`` server (a leaf service)
    rest/       the REST API: routers by resource, views, basic auth, Prometheus metrics
    herder/     what runs, decided once: ``WorkerApi`` (the one interface REST uses), the
                standalone herder and the distributed one (group, config topic, forwarding)
    worker/     runs what the herder decides: connectors, the task supervisor (restarts),
                task specs, KIP-875 offset writes, the validator
    engine/     ``Engine.start_task(spec, status)``, ``local`` (threads), ``spark/`` (driver, executor)
    tasks/      ``TaskSpec``, ``TaskRunner`` (a task's state), the source and sink pipelines
    errors/     ``errors.*``: retries, tolerance, error log, dead letter queue
    storage/    offsets, configs, target states and statuses (memory, file, Kafka topics)
    config/     config definitions, config providers, properties files
    plugins/    discovery, descriptors, versions, name resolution, ``plugins install``
    isolation/  plugin.path locations in subprocesses: proxies, process, ``host/`` and codec
    status, metrics, logcontext   leaves every layer may use
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kconnect_sdk import PluginKind

if TYPE_CHECKING:
    from ._version import __version__
    from .config import load_connector_config, load_properties, parse_properties
    from .herder import DistributedHerder, StandaloneHerder
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

# Imported on first use (PEP 562): a process that needs one layer (a Spark executor's
# Python worker running the DataFrame data source, a plugin host) does not pay for the
# REST API and the distributed mode (about 0.6 s of imports).
_LAZY = {
    "__version__": "_version",  # read from the installed distributions' metadata
    "load_connector_config": "config",
    "load_properties": "config",
    "parse_properties": "config",
    "HOST_SCRIPT": "isolation",
    "IsolatedSinkTask": "isolation",
    "IsolatedSourceTask": "isolation",
    "location_python": "isolation",
    "pack_records": "isolation",
    "unpack_records": "isolation",
    "Distributed": "modes",
    "EmbeddedBroker": "modes",
    "Standalone": "modes",
    "StandaloneHerder": "herder",
    "DistributedHerder": "herder",
    "PluginDesc": "plugins",
    "PluginRegistry": "plugins",
    "install_plugin": "plugins",
    "Worker": "worker",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "HOST_SCRIPT",
    "Distributed",
    "DistributedHerder",
    "EmbeddedBroker",
    "IsolatedSinkTask",
    "IsolatedSourceTask",
    "PluginDesc",
    "PluginKind",
    "PluginRegistry",
    "Standalone",
    "StandaloneHerder",
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
