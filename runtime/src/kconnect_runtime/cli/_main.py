"""The ``kconnect`` command line.

kconnect standalone WORKER.properties [CONNECTOR.properties|CONNECTOR.json ...]
kconnect distributed WORKER.properties
kconnect mirror-maker MM2.properties [--clusters CLUSTER ...]
kconnect quickstart [--config-dir config] [--lines N]
kconnect plugins list|install|describe
kconnect schema-registry SCHEMA-REGISTRY.properties
kconnect get|describe|apply|pause|resume|stop|restart|delete|offsets|validate|status ...
    (kcctl-style commands against any Kafka Connect REST API: see ``_ops`` and docs/cli.md)
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.logcontext import install_record_factory

from ._ops import add_ops_commands
from ._parser import command
from ._plugins import add_plugin_commands

if TYPE_CHECKING:
    from kconnect_runtime.modes import MirrorMaker, Standalone

# The worker modes (the REST API, Kafka clients, the engines) and the schema registry are
# imported by the commands that run them: an operator command (``kconnect get
# connectors``) answers without paying for them.

log = logging.getLogger("kconnect")


def _setup_logging(verbose: bool) -> None:
    # Every record gets connector_context ("[name|task-0] " on task threads), as Kafka's MDC.
    install_record_factory()
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="[%(asctime)s] %(levelname)s %(connector_context)s%(message)s (%(name)s)",
        stream=sys.stderr,
    )
    logging.getLogger("uvicorn").setLevel(logging.WARNING)


# -- clean restarts -----------------------------------------------------------------------
def _install_stop_handlers() -> threading.Event:
    """SIGINT/SIGTERM set the returned event; installed before anything starts.

    A signal during startup (tasks may already run) then stops what was started and
    commits, exactly as one after startup: never the default, which ends the process as
    kill -9 would and repeats everything since the last commit.
    """
    stop = threading.Event()

    def handler(signum: int, _frame: object) -> None:
        log.info("received %s; stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return stop


def _run_until_signal(
    app: Standalone | MirrorMaker, stop: threading.Event, progress_interval: float
) -> int:
    try:
        app.start()
    except ConnectError:
        if stop.is_set():  # interrupted during startup: start() stopped what it started
            log.info("stopped during startup")
            return 0
        raise
    try:
        app.start_progress_log(progress_interval)
        while not stop.wait(1.0):
            pass
    finally:
        app.stop()
    return 0


def _in_file(exc: ConnectError, worker_file: str, connector_files: dict[str, str]) -> ConnectError:
    """``exc`` with the config file it is about in front, when its message says which:
    an operator with several connector files should not have to search for the key."""
    message = str(exc)
    source = None
    if message.startswith("worker config"):
        source = worker_file
    elif message.startswith("connector '"):
        source = connector_files.get(message[len("connector '") :].split("'", 1)[0])
    if source is None:
        return exc
    if isinstance(exc, ConfigError):
        return ConfigError(f"{source}: {message}", name=exc.name, value=exc.value)
    return ConnectError(f"{source}: {message}")


def cmd_standalone(args: argparse.Namespace) -> int:
    from kconnect_runtime.config import load_connector_config, load_properties
    from kconnect_runtime.modes import Standalone

    stop = _install_stop_handlers()
    worker_props = load_properties(args.worker_config)
    connectors, files = [], {}
    for path in args.connector_configs:
        config = load_connector_config(path)
        connectors.append(config)
        files[str(config.get("name", ""))] = str(path)
    try:
        app = Standalone(worker_props, connectors, stop_requested=stop)
        return _run_until_signal(app, stop, args.progress_interval)
    except ConnectError as exc:
        raise _in_file(exc, str(args.worker_config), files) from exc


def cmd_distributed(args: argparse.Namespace) -> int:
    from kconnect_runtime.config import load_properties
    from kconnect_runtime.modes import Distributed

    stop = _install_stop_handlers()
    try:
        app = Distributed(load_properties(args.worker_config), stop_requested=stop)
        return _run_until_signal(app, stop, args.progress_interval)
    except ConnectError as exc:
        raise _in_file(exc, str(args.worker_config), {}) from exc


def cmd_mirror_maker(args: argparse.Namespace) -> int:
    """Kafka's ``connect-mirror-maker.sh``: every enabled flow of the file into this node's
    target clusters, until SIGINT/SIGTERM."""
    from kconnect_runtime.config import load_properties
    from kconnect_runtime.modes import MirrorMaker, load_mirror_maker_flows

    source = str(args.config)
    props = load_properties(args.config)
    try:
        flows = load_mirror_maker_flows(props, clusters=args.clusters)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}", name=exc.name) from exc
    aliases = {a.strip() for a in props.get("clusters", "").split(",") if a.strip()}
    for cluster in args.clusters or []:
        if cluster not in aliases:
            log.warning(
                "--clusters %s: %s defines no cluster %r (clusters = %s); no flow targets it",
                cluster,
                source,
                cluster,
                ", ".join(sorted(aliases)),
            )
    log.info("%s: targeting clusters %s", source, ", ".join(args.clusters or sorted(aliases)))
    stop = _install_stop_handlers()  # before anything starts: flows stop cleanly
    app = MirrorMaker(props, flows, stop_requested=stop, source=source)
    return _run_until_signal(app, stop, args.progress_interval)


def _count_lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def _quickstart_dir(given: str | None) -> Path:
    """``--config-dir``; else ``./config`` of a checkout; else Kafka's three quickstart
    files as shipped with the runtime, so the quickstart also runs from an installed wheel."""
    if given is not None:
        return Path(given)
    local = Path("config")
    if (local / "connect-standalone.properties").is_file():
        return local
    return Path(__file__).with_name("quickstart")


def cmd_quickstart(args: argparse.Namespace) -> int:
    """Apache Kafka's Connect quickstart, with the same three config files, ending by itself."""
    from kconnect_runtime.config import load_connector_config, load_properties
    from kconnect_runtime.modes import Standalone, describe_progress

    config_dir = _quickstart_dir(args.config_dir)
    worker_file = config_dir / "connect-standalone.properties"
    source_file = config_dir / "connect-file-source.properties"
    sink_file = config_dir / "connect-file-sink.properties"
    worker_props = load_properties(worker_file)
    source = load_connector_config(source_file)
    sink = load_connector_config(sink_file)
    input_path = Path(source.get("file") or "test.txt")
    output_path = Path(sink.get("file") or "test.sink.txt")
    offsets = Path(worker_props.get("offset.storage.file.filename", ""))
    # A fresh run: new sample, no output and no offsets left from an earlier run.
    for stale in (output_path, offsets):
        if stale.name and stale.is_file():
            stale.unlink()
    with input_path.open("w", encoding="utf-8") as f:
        f.writelines(
            f"kconnect quickstart line {i}: the quick brown fox jumps over the lazy dog\n"
            for i in range(1, args.lines + 1)
        )
    print(
        f"quickstart: {args.lines} lines in {input_path} will travel {source['name']} → topic "
        f"{source.get('topic')} → {sink['name']} → {output_path}\n"
        f"  (the same as: kconnect standalone {worker_file} {source_file} {sink_file})",
        flush=True,
    )
    started = time.monotonic()
    app = Standalone(worker_props, [source, sink])
    herder = app.start()
    try:
        deadline = started + args.timeout
        last_report = 0.0
        while (arrived := _count_lines(output_path)) < args.lines:
            for name in herder.connector_names():
                for task in herder.connector_status(name)["tasks"]:
                    if task["state"] == "FAILED":
                        print(
                            f"quickstart: task {name}-{task['id']} FAILED:\n{task.get('trace')}",
                            file=sys.stderr,
                        )
                        return 1
            if time.monotonic() > deadline:
                print(
                    f"quickstart: only {arrived} of {args.lines} lines arrived within {args.timeout}s",
                    file=sys.stderr,
                )
                return 1
            if time.monotonic() - last_report >= 1.0:
                print(f"  progress: {describe_progress(herder.progress())}", flush=True)
                last_report = time.monotonic()
            time.sleep(0.1)
        elapsed = time.monotonic() - started
        same = input_path.read_bytes() == output_path.read_bytes()
        # The file can be complete before the counts say so: the spark engine counts a
        # cycle's records when its job returns, after the sink wrote them. A few seconds
        # for the last line to report every record, so it does not read "0 put".
        settle = time.monotonic() + 10
        while time.monotonic() < settle and any(
            min(records_in, records_out) < args.lines
            for _, records_in, records_out in herder.progress().values()
        ):
            time.sleep(0.1)
        print(f"  progress: {describe_progress(herder.progress())}")
        print(
            f"quickstart: done. {arrived} lines arrived in {output_path} in {elapsed:.1f}s "
            f"(broker: {'embedded Tansu' if app.broker else app.bootstrap_servers}); "
            f"output {'matches' if same else 'DIFFERS FROM'} the input",
            flush=True,
        )
        return 0 if same else 1
    finally:
        app.stop()


def cmd_schema_registry(argv: Sequence[str]) -> int:
    """``kconnect schema-registry schema-registry.properties``, as Confluent's start script."""
    from kconnect_runtime import schema_registry

    return schema_registry.main(list(argv))


class _Version(argparse.Action):
    """``--version``, read from the distribution's metadata only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from kconnect_runtime._version import __version__

        parser.exit(message=f"kconnect {__version__}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kconnect", description="Kafka Connect for Python.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)

    p = command(
        sub,
        "standalone",
        "run a standalone worker until SIGINT/SIGTERM",
        [
            "kconnect standalone config/connect-standalone.properties "
            "config/connect-file-source.properties",
            "kconnect standalone worker.properties jdbc-source.json s3-sink.properties",
        ],
    )
    p.add_argument("worker_config", help="worker .properties file")
    p.add_argument("connector_configs", nargs="*", help="connector configs (.properties or .json)")
    p.add_argument(
        "--progress-interval", type=float, default=5.0, help="seconds between progress lines"
    )
    p.set_defaults(func=cmd_standalone)

    p = command(
        sub,
        "distributed",
        "run a worker whose connectors, offsets and statuses live in Kafka topics",
        ["kconnect distributed worker.properties   # group.id, config/offset/status.storage.topic"],
    )
    p.add_argument("worker_config", help="worker .properties file (group.id, *.storage.topic)")
    p.add_argument(
        "--progress-interval", type=float, default=5.0, help="seconds between progress lines"
    )
    p.set_defaults(func=cmd_distributed)

    p = command(
        sub,
        "mirror-maker",
        "run MirrorMaker 2's flows from a connect-mirror-maker.properties until SIGINT/SIGTERM",
        [
            "kconnect mirror-maker config/connect-mirror-maker.properties",
            "kconnect mirror-maker mm2.properties --clusters us   # only the flows into us",
        ],
    )
    p.add_argument("config", metavar="mm2.properties", help="MirrorMaker 2 properties file")
    p.add_argument(
        "--clusters",
        nargs="+",
        metavar="CLUSTER",
        help="the target clusters this node runs flows into (default: every cluster)",
    )
    p.add_argument(
        "--progress-interval", type=float, default=5.0, help="seconds between progress lines"
    )
    p.set_defaults(func=cmd_mirror_maker)

    p = command(
        sub,
        "quickstart",
        "move a sample file through Kafka with Apache Kafka's quickstart configs, then stop",
        ["kconnect quickstart", "kconnect quickstart --lines 1000000 --config-dir my-config"],
    )
    p.add_argument(
        "--config-dir",
        default=None,
        help="folder with connect-standalone.properties, connect-file-source.properties and "
        "connect-file-sink.properties (default: ./config, else the copies shipped with kconnect)",
    )
    p.add_argument("--lines", type=int, default=10000, help="lines in the sample file")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds before giving up")
    p.set_defaults(func=cmd_quickstart)

    p = sub.add_parser(
        "schema-registry",
        help="run a Confluent-compatible Schema Registry that keeps its state in Kafka",
        add_help=False,
    )

    p = command(
        sub,
        "plugins",
        "install and inspect plugins",
        [
            "kconnect plugins list",
            "kconnect plugins describe JdbcSourceConnector",
            "kconnect plugins install kconnect-connector-jdbc --path /opt/kconnect/plugins/jdbc",
        ],
    )
    psub = p.add_subparsers(dest="plugins_command", required=True)
    add_plugin_commands(psub)
    add_ops_commands(sub, parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((i for i, arg in enumerate(argv) if not arg.startswith("-")), None)
    if command is not None and argv[command] == "schema-registry":
        return cmd_schema_registry(argv[command + 1 :])
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.verbose)
    try:
        code: int = args.func(args)
    except (ConfigError, ConnectError) as exc:
        print(f"kconnect: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
