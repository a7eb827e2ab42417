"""kcctl-style operator commands that talk to any Kafka Connect REST API (ours or Java's).

kconnect get connectors|plugins            kconnect describe connector NAME | plugin CLASS
kconnect apply -f CONFIG [-f CONFIG ...]   kconnect pause|resume|stop|delete [connector] NAME ...
kconnect restart [connector] NAME ... [--include-tasks] [--only-failed]
kconnect restart task NAME/ID              kconnect offsets get|alter|reset NAME [-f OFFSETS]
kconnect validate -f CONFIG [--offline]    kconnect status [NAME ...] [--watch]
kconnect completion bash|zsh

The worker is ``--url`` (default ``$KCONNECT_URL`` or ``http://localhost:8083``) with
``--user``/``--password`` (``$KCONNECT_USER``/``$KCONNECT_PASSWORD``) for basic auth and
``--cacert``/``--insecure``/``--cert``/``--key`` for TLS. Output is for people unless
``-o json|yaml|name`` asks for scripts. Exit codes: 0 done, 1 the worker refused or the
config has errors, 2 a usage error, 3 the worker cannot be reached.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kconnect_sdk import ConfigError, ConnectError

from ._client import DEFAULT_URL, URL_ENV, ConnectApiError, ConnectClient
from ._output import FORMATS, emit, table
from ._parser import command

__all__ = ["OPS_COMMANDS", "add_ops_commands", "completion_script"]

EXIT_FAILED = 1
EXIT_UNREACHABLE = 3
HIDDEN = "[hidden]"
# Java workers return configs in clear; keys named like these are hidden by the CLI too.
_SECRET_NAME = re.compile(r"(password|secret|token|credential|sasl\.jaas\.config|api\.key)", re.I)

OPS_COMMANDS = (
    "get",
    "describe",
    "apply",
    "pause",
    "resume",
    "stop",
    "restart",
    "delete",
    "offsets",
    "validate",
    "status",
    "completion",
)


# --- plumbing -------------------------------------------------------------------------
def _client(args: argparse.Namespace) -> ConnectClient:
    verify: bool | str = args.cacert or not args.insecure
    return ConnectClient(
        args.url,
        user=args.user,
        password=args.password,
        verify=verify,
        cert=args.cert,
        key=args.key,
        timeout=args.request_timeout,
    )


def _run(action: Callable[[argparse.Namespace, ConnectClient], int]) -> Callable[..., int]:
    """An action with a client; the worker's refusals become messages and exit codes."""

    def run(args: argparse.Namespace) -> int:
        try:
            with _client(args) as client:
                return action(args, client)
        except ConnectApiError as exc:
            print(f"kconnect: error: {exc}", file=sys.stderr)
            return EXIT_UNREACHABLE if exc.status == 0 else EXIT_FAILED

    return run


def _connection_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("worker connection")
    group.add_argument(
        "--url",
        default=None,
        help=f"the worker's REST URL (default ${URL_ENV} or {DEFAULT_URL})",
    )
    group.add_argument("--user", default=None, help="basic-auth user (default $KCONNECT_USER)")
    group.add_argument(
        "--password", default=None, help="basic-auth password (default $KCONNECT_PASSWORD)"
    )
    group.add_argument("--cacert", default=None, help="CA bundle (PEM) to verify https:// URLs")
    group.add_argument(
        "--insecure", action="store_true", help="do not verify the worker's TLS certificate"
    )
    group.add_argument("--cert", default=None, help="client certificate (PEM) for mutual TLS")
    group.add_argument("--key", default=None, help="private key (PEM) of --cert")
    group.add_argument(
        "--request-timeout", type=float, default=30.0, help="seconds per request (default 30)"
    )
    common.add_argument(
        "-o", "--output", choices=FORMATS, default="table", help="output format (default table)"
    )
    return common


def _strip_kind(words: Sequence[str], kinds: Sequence[str]) -> tuple[str | None, list[str]]:
    """``connector NAME`` / ``NAME``: kcctl's resource word is optional."""
    if words and words[0] in kinds:
        return words[0], list(words[1:])
    return None, list(words)


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def _hide(config: Mapping[str, Any], password_keys: set[str]) -> dict[str, Any]:
    return {
        k: HIDDEN if (k in password_keys or _SECRET_NAME.search(k)) and v not in (None, "") else v
        for k, v in config.items()
    }


def _password_keys(client: ConnectClient, plugin: str | None) -> set[str]:
    if not plugin:
        return set()
    try:
        return {d["name"] for d in client.plugin_config(plugin) if d.get("type") == "PASSWORD"}
    except ConnectApiError:
        return set()


def _tasks_summary(status: Mapping[str, Any]) -> str:
    tasks = status.get("tasks") or []
    return ", ".join(f"{t.get('id')}: {t.get('state')}" for t in tasks) or "-"


def _load_config(path: str, name: str | None = None) -> dict[str, str]:
    from kconnect_runtime.config import load_connector_config

    try:
        config = load_connector_config(path)
    except FileNotFoundError:
        raise ConfigError(f"connector config file {path!r} does not exist") from None
    if name:
        config["name"] = name
    if not config.get("name"):
        # As documented for apply and validate: a file without a name names the connector
        # after itself (jdbc-source.json: jdbc-source).
        config["name"] = Path(path).stem
    return config


# --- get ------------------------------------------------------------------------------
def _get(args: argparse.Namespace, client: ConnectClient) -> int:
    if args.resource in ("connectors", "connector"):
        found = client.connectors()
        wanted = set(args.names)
        missing = wanted - set(found)
        rows = []
        for name in sorted(found):
            if wanted and name not in wanted:
                continue
            status = found[name].get("status") or {}
            info = found[name].get("info") or {}
            connector = status.get("connector") or {}
            rows.append(
                {
                    "name": name,
                    "type": status.get("type") or info.get("type") or "",
                    "state": connector.get("state", ""),
                    "worker_id": connector.get("worker_id", ""),
                    "version": connector.get("version", ""),
                    "tasks": [
                        {
                            "id": t.get("id"),
                            "state": t.get("state"),
                            "worker_id": t.get("worker_id"),
                        }
                        for t in status.get("tasks") or []
                    ],
                }
            )
        emit(
            rows,
            args.output,
            lambda rs: table(
                ("NAME", "TYPE", "STATE", "TASKS", "WORKER", "VERSION"),
                [
                    (
                        r["name"],
                        r["type"],
                        r["state"],
                        _tasks_summary(r),
                        r["worker_id"],
                        r["version"],
                    )
                    for r in rs
                ],
            ),
            lambda rs: [r["name"] for r in rs],
        )
        if missing:
            print(
                f"kconnect: error: no connector named {', '.join(sorted(missing))}", file=sys.stderr
            )
            return EXIT_FAILED
        return 0
    plugins = client.plugins(connectors_only=not args.all)
    emit(
        plugins,
        args.output,
        lambda ps: table(
            ("TYPE", "CLASS", "VERSION"),
            [(p.get("type", ""), p.get("class", ""), p.get("version", "")) for p in ps],
        ),
        lambda ps: [p.get("class", "") for p in ps],
    )
    return 0


# --- describe -------------------------------------------------------------------------
def _describe_connector(client: ConnectClient, name: str) -> dict[str, Any]:
    info = client.connector(name)
    status = client.status(name)
    config = info.get("config") or {}
    connector = status.get("connector") or {}
    out: dict[str, Any] = {
        "name": name,
        "type": info.get("type") or status.get("type"),
        "state": connector.get("state"),
        "worker_id": connector.get("worker_id"),
        "trace": connector.get("trace"),
        "config": _hide(config, _password_keys(client, config.get("connector.class"))),
        "tasks": [
            {
                k: t.get(k)
                for k in ("id", "state", "worker_id", "progress", "trace")
                if t.get(k) is not None
            }
            for t in status.get("tasks") or []
        ],
    }
    if connector.get("version"):
        out["version"] = connector["version"]
    # Topic tracking and offsets may be off or missing on an older worker: shown when there.
    with contextlib.suppress(ConnectApiError):
        out["topics"] = client.topics(name)
    with contextlib.suppress(ConnectApiError):
        out["offsets"] = client.offsets(name).get("offsets", [])
    return out


def _indent(text: str, by: int) -> str:
    return "\n".join(" " * by + line for line in text.splitlines())


def _connector_text(d: Mapping[str, Any]) -> str:
    lines = [
        f"Name:       {d['name']}",
        f"Type:       {d.get('type') or ''}",
        f"State:      {d.get('state') or ''}",
        f"Worker ID:  {d.get('worker_id') or ''}",
    ]
    if d.get("version"):
        lines.append(f"Version:    {d['version']}")
    if d.get("trace"):
        lines += ["Trace:", _indent(d["trace"], 2)]
    lines.append("Config:")
    width = max((len(k) for k in d["config"]), default=0)
    lines += [f"  {k + ':':<{width + 1}}  {v}" for k, v in sorted(d["config"].items())]
    lines.append("Tasks:")
    for task in d["tasks"]:
        lines += [
            f"  {task.get('id')}:",
            f"    State:      {task.get('state', '')}",
            f"    Worker ID:  {task.get('worker_id', '')}",
        ]
        if task.get("progress"):  # kconnect workers: a snapshot's or bulk load's progress
            lines.append(f"    Progress:   {_progress_text(task['progress'])}")
        if task.get("trace"):
            lines += ["    Trace:", _indent(task["trace"], 6)]
    if "topics" in d:
        lines.append("Topics:")
        lines += [f"  {t}" for t in d["topics"]] or ["  (none)"]
    if "offsets" in d:
        lines.append("Offsets:")
        lines += [
            f"  {json.dumps(o.get('partition'))}: {json.dumps(o.get('offset'))}"
            for o in d["offsets"]
        ] or ["  (none)"]
    return "\n".join(lines)


def _plugin_text(d: Mapping[str, Any]) -> str:
    rows = [
        (
            k.get("name", ""),
            k.get("type", ""),
            "" if k.get("default_value") is None else k.get("default_value"),
            "yes" if k.get("required") else "",
            k.get("importance", ""),
            _first_line(k.get("documentation")),
        )
        for k in d["config"]
    ]
    head = (
        f"Class:    {d['class']}\nType:     {d.get('type', '')}\nVersion:  {d.get('version', '')}\n"
    )
    return head + table(("KEY", "TYPE", "DEFAULT", "REQUIRED", "IMPORTANCE", "DOCUMENTATION"), rows)


def _describe(args: argparse.Namespace, client: ConnectClient) -> int:
    if args.resource == "connector":
        found = [_describe_connector(client, name) for name in args.names]
        emit(
            found if len(found) > 1 else found[0],
            args.output,
            lambda d: "\n\n".join(_connector_text(x) for x in (d if isinstance(d, list) else [d])),
            lambda d: [x["name"] for x in (d if isinstance(d, list) else [d])],
        )
        return 0
    plugins = {p.get("class"): p for p in client.plugins(connectors_only=False)}
    out = []
    for name in args.names:
        # A simple name (FileStreamSource) finds the plugin as the REST API's aliases do.
        match = plugins.get(name) or next(
            (
                p
                for c, p in plugins.items()
                if c and c.rsplit(".", 1)[-1] in (name, f"{name}Connector")
            ),
            {"class": name},
        )
        out.append({**match, "config": client.plugin_config(str(match["class"]))})
    emit(
        out if len(out) > 1 else out[0],
        args.output,
        lambda d: "\n\n".join(_plugin_text(x) for x in (d if isinstance(d, list) else [d])),
        lambda d: [x["class"] for x in (d if isinstance(d, list) else [d])],
    )
    return 0


# --- apply ----------------------------------------------------------------------------
def _warn_unknown(client: ConnectClient, config: Mapping[str, str]) -> None:
    try:
        keys, prefixes = client.plugin_config_and_prefixes(config.get("connector.class", ""))
    except ConnectApiError:
        return  # the worker will name an unknown class itself
    from kconnect_runtime.config import unknown_connector_keys

    own = [d["name"] for d in keys]
    # Keys under a prefix the plugin accepts (MirrorMaker's source.cluster.*) are its own.
    for unknown in unknown_connector_keys(config, own, prefixes):
        print(
            f"kconnect: warning: {config['name']}: {unknown.message('connector')}", file=sys.stderr
        )


def _apply(args: argparse.Namespace, client: ConnectClient) -> int:
    if args.name and len(args.file) > 1:
        raise ConfigError("--name applies to one -f file only")
    results = []
    for path in args.file:
        config = _load_config(path, args.name)
        name = config["name"]
        if not config.get("connector.class"):
            raise ConfigError(f"{path}: the config has no 'connector.class'")
        _warn_unknown(client, config)
        try:
            current: dict[str, Any] | None = client.connector(name).get("config")
        except ConnectApiError as exc:
            if exc.status != 404:
                raise
            current = None
        if current == config:
            outcome = "unchanged"
        elif args.dry_run:
            outcome = "would be created" if current is None else "would be updated"
            infos = client.validate(config["connector.class"], config)
            if infos.get("error_count"):
                _print_validation(_validation_report(name, config, infos), sys.stderr)
                return EXIT_FAILED
        else:
            client.put_config(name, config)
            outcome = "created" if current is None else "updated"
        results.append({"name": name, "result": outcome})
    emit(
        results,
        args.output,
        lambda rs: "\n".join(f"connector {r['name']} {r['result']}" for r in rs),
        lambda rs: [r["name"] for r in rs],
    )
    return 0


# --- pause, resume, stop, delete, restart ---------------------------------------------
_VERBS = {
    "pause": ("paused", ConnectClient.pause),
    "resume": ("resumed", ConnectClient.resume),
    "stop": ("stopped", ConnectClient.stop),
    "delete": ("deleted", ConnectClient.delete),
}


def _lifecycle(args: argparse.Namespace, client: ConnectClient) -> int:
    _kind, names = _strip_kind(args.names, ("connector", "connectors"))
    if not names:
        raise ConfigError(f"{args.command}: name at least one connector")
    done, action = _VERBS[args.command]
    results = []
    for name in names:
        action(client, name)
        results.append({"name": name, "result": done})
    emit(
        results,
        args.output,
        lambda rs: "\n".join(f"connector {r['name']} {r['result']}" for r in rs),
        lambda rs: [r["name"] for r in rs],
    )
    return 0


def _restart(args: argparse.Namespace, client: ConnectClient) -> int:
    kind, names = _strip_kind(args.names, ("connector", "connectors", "task", "tasks"))
    if not names:
        raise ConfigError("restart: name at least one connector (or task NAME/ID)")
    results: list[dict[str, Any]] = []
    if kind in ("task", "tasks"):
        for ref in names:
            name, _, task_id = ref.rpartition("/")
            if not name or not task_id.isdigit():
                raise ConfigError(f"restart task: expected CONNECTOR/TASK-ID, got {ref!r}")
            client.restart_task(name, int(task_id))
            results.append({"name": name, "task": int(task_id), "result": "restarted"})
    else:
        for name in names:
            status = client.restart(
                name, include_tasks=args.include_tasks, only_failed=args.only_failed
            )
            entry: dict[str, Any] = {"name": name, "result": "restarted"}
            if status:  # KIP-745: which parts are restarting
                entry["status"] = status
            results.append(entry)
    emit(
        results,
        args.output,
        lambda rs: "\n".join(
            f"task {r['name']}/{r['task']} restarted"
            if "task" in r
            else f"connector {r['name']} restarted"
            for r in rs
        ),
        lambda rs: [r["name"] for r in rs],
    )
    return 0


# --- offsets --------------------------------------------------------------------------
def _offsets(args: argparse.Namespace, client: ConnectClient) -> int:
    if args.action == "get":
        found = client.offsets(args.name)
        emit(
            found,
            args.output,
            lambda d: table(
                ("PARTITION", "OFFSET"),
                [
                    (json.dumps(o.get("partition")), json.dumps(o.get("offset")))
                    for o in d.get("offsets", [])
                ],
            ),
        )
        return 0
    if args.action == "alter":
        if not args.file:
            raise ConfigError(
                'offsets alter: give -f OFFSETS.json ({"offsets": [...]}, as GET returns)'
            )
        try:
            body = json.loads(Path(args.file).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{args.file}: cannot read offsets: {exc}") from None
        if isinstance(body, list):
            body = {"offsets": body}
        answer = client.alter_offsets(args.name, body)
    else:
        answer = client.reset_offsets(args.name)
    emit(answer, args.output, lambda d: str(d.get("message", d)))
    return 0


# --- validate -------------------------------------------------------------------------
def _validation_report(
    name: str,
    config: Mapping[str, str],
    infos: Mapping[str, Any],
    prefixes: Sequence[str] = (),
) -> dict[str, Any]:
    from kconnect_runtime.config import unknown_connector_keys

    errors = []
    known = set()
    for entry in infos.get("configs") or []:
        definition = entry.get("definition") or {}
        value = entry.get("value") or {}
        key = value.get("name") or definition.get("name")
        if key:
            known.add(key)
        errors += [{"key": key, "message": m} for m in value.get("errors") or []]
    # Without the connector's own definition (its class failed) every key would look unknown.
    unknown = (
        []
        if any(e["key"] == "connector.class" for e in errors)
        else [
            {"key": u.key, "suggestion": u.suggestion}
            for u in unknown_connector_keys(config, known, prefixes)
        ]
    )
    return {
        "name": name,
        "plugin": infos.get("name"),
        "error_count": len(errors),
        "errors": errors,
        "unknown_keys": unknown,
    }


def _validation_text(report: Mapping[str, Any]) -> str:
    lines = [
        f"{report['name']} ({report['plugin']}): {report['error_count']} error(s), "
        f"{len(report['unknown_keys'])} unknown key(s)"
    ]
    lines += [f"  ERROR {e['key']}: {e['message']}" for e in report["errors"]]
    for u in report["unknown_keys"]:
        hint = f" (did you mean '{u['suggestion']}'?)" if u["suggestion"] else ""
        lines.append(f"  WARN  {u['key']}: unknown key{hint}; it is ignored")
    if not report["errors"] and not report["unknown_keys"]:
        lines.append("  the config is valid")
    return "\n".join(lines)


def _print_validation(report: Mapping[str, Any], stream: Any) -> None:
    print(_validation_text(report), file=stream)


def _offline_infos(
    args: argparse.Namespace, config: Mapping[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """The connector's ``ConfigInfos`` from the plugins installed here, and the key prefixes
    it accepts."""
    # Imported here: discovery is only needed offline and reads every installed plugin.
    from kconnect_runtime.config import load_properties
    from kconnect_runtime.plugins import PluginRegistry
    from kconnect_runtime.worker import config_infos

    from ._plugins import describe_plugin

    worker = (
        load_properties(args.worker_config)
        if args.worker_config
        else {
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        }
    )
    plugin_path = list(args.plugin_path or [])
    if not plugin_path and worker.get("plugin.path"):
        plugin_path = [p.strip() for p in worker["plugin.path"].split(",") if p.strip()]
    registry = PluginRegistry.discover(plugin_path=plugin_path)
    infos = config_infos(registry, worker, config)
    try:
        described = describe_plugin(registry, config["connector.class"])
    except (ConfigError, ConnectError):
        return infos, []  # the class's own error is in the infos
    return infos, list(described.get("config_prefixes") or {})


def _validate(args: argparse.Namespace) -> int:
    if args.name and len(args.file) > 1:
        raise ConfigError("--name applies to one -f file only")
    reports = []
    for path in args.file:
        config = _load_config(path, args.name)
        if not config.get("connector.class"):
            raise ConfigError(f"{path}: the config has no 'connector.class'")
        if args.offline:
            infos, prefixes = _offline_infos(args, config)
        else:
            with _client(args) as client:
                infos = client.validate(config["connector.class"], config)
                try:
                    prefixes = client.plugin_config_and_prefixes(config["connector.class"])[1]
                except ConnectApiError:
                    prefixes = []  # the class's own error is in the infos
        reports.append(_validation_report(config["name"], config, infos, prefixes))
    emit(
        reports if len(reports) > 1 else reports[0],
        args.output,
        lambda d: "\n".join(_validation_text(r) for r in (d if isinstance(d, list) else [d])),
        lambda d: [r["name"] for r in (d if isinstance(d, list) else [d])],
    )
    if any(r["error_count"] for r in reports):
        return EXIT_FAILED
    # --strict (for CI): a key the connector does not know is a failure, not a warning.
    return EXIT_FAILED if args.strict and any(r["unknown_keys"] for r in reports) else 0


def _validate_command(args: argparse.Namespace) -> int:
    try:
        return _validate(args)
    except ConnectApiError as exc:
        print(f"kconnect: error: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE if exc.status == 0 else EXIT_FAILED


# --- status [--watch] -----------------------------------------------------------------
def _states(client: ConnectClient, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    if names:
        return {name: client.status(name) for name in names}
    return {n: (c.get("status") or {}) for n, c in client.connectors().items()}


def _state_rows(states: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for name in sorted(states):
        connector = states[name].get("connector") or {}
        rows.append(
            {
                "name": name,
                "task": None,
                "state": connector.get("state"),
                "worker_id": connector.get("worker_id"),
                "trace": connector.get("trace"),
            }
        )
        rows += [
            {
                "name": name,
                "task": t.get("id"),
                "state": t.get("state"),
                "worker_id": t.get("worker_id"),
                "trace": t.get("trace"),
                **({"progress": t["progress"]} if t.get("progress") else {}),
            }
            for t in states[name].get("tasks") or []
        ]
    return rows


def _progress_text(progress: Mapping[str, Any]) -> str:
    """``1200 of about 5000 rows (24 %)``, or ``1200 rows`` without an estimate."""
    done, total = progress.get("done") or 0, progress.get("total")
    if total:
        return f"{done} of about {total} rows ({min(100.0, 100.0 * done / total):.0f} %)"
    return f"{done} rows"


def _rows_text(rows: Sequence[Mapping[str, Any]]) -> str:
    if any(r.get("progress") for r in rows):  # only then: other workers' tables stay as they are
        return table(
            ("CONNECTOR", "TASK", "STATE", "WORKER", "PROGRESS", "TRACE"),
            [
                (
                    r["name"],
                    "-" if r["task"] is None else r["task"],
                    r["state"],
                    r["worker_id"],
                    _progress_text(r["progress"]) if r.get("progress") else "",
                    _first_line(r["trace"]),
                )
                for r in rows
            ],
        )
    return table(
        ("CONNECTOR", "TASK", "STATE", "WORKER", "TRACE"),
        [
            (
                r["name"],
                "-" if r["task"] is None else r["task"],
                r["state"],
                r["worker_id"],
                _first_line(r["trace"]),
            )
            for r in rows
        ],
    )


def _event_line(event: Mapping[str, Any]) -> str:
    what = event["name"] if event["task"] is None else f"{event['name']}/{event['task']}"
    line = f"[{event['time']}] {what}: {event['from'] or 'NEW'} -> {event['state'] or 'GONE'}"
    trace = _first_line(event.get("trace"))
    return f"{line}  {trace}" if trace else line


def _status(args: argparse.Namespace, client: ConnectClient) -> int:
    rows = _state_rows(_states(client, args.names))
    emit(rows, args.output, _rows_text, lambda rs: sorted({r["name"] for r in rs}))
    if not args.watch:
        return 0
    # logs-style: after the table, one line per change until Ctrl-C (or --timeout).
    seen = {(r["name"], r["task"]): r for r in rows}
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(args.interval)
            try:
                current = {
                    (r["name"], r["task"]): r for r in _state_rows(_states(client, args.names))
                }
            except ConnectApiError as exc:
                if exc.status != 404:
                    raise
                current = {}  # a watched connector was deleted
            stamp = time.strftime("%H:%M:%S")
            for key in [*seen, *(k for k in current if k not in seen)]:
                before, after = seen.get(key), current.get(key)
                if (before or {}).get("state") == (after or {}).get("state"):
                    continue
                event = {
                    "time": stamp,
                    "name": key[0],
                    "task": key[1],
                    "from": (before or {}).get("state"),
                    "state": (after or {}).get("state"),
                    "trace": (after or {}).get("trace"),
                }
                print(
                    json.dumps(event) if args.output == "json" else _event_line(event), flush=True
                )
            seen = current
    except KeyboardInterrupt:
        pass
    return 0


# --- completion -----------------------------------------------------------------------
def completion_script(shell: str, parser: argparse.ArgumentParser) -> str:
    """A bash (or zsh, through bashcompinit) completion script for ``kconnect``."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    commands = sorted(sub.choices)
    cases = []
    for name, p in sorted(sub.choices.items()):
        flags = sorted(o for a in p._actions for o in a.option_strings)
        words = {
            "get": "connectors plugins",
            "describe": "connector plugin",
            "restart": "connector task",
            "offsets": "get alter reset",
            "completion": "bash zsh",
            "plugins": "list install describe",
        }.get(name, "")
        cases.append(f'    {name}) words="{words}"; flags="{" ".join(flags)}";;')
    connector_commands = "pause|resume|stop|delete|restart|describe|offsets|status|get"
    script = f"""# kconnect completion ({shell}): source <(kconnect completion {shell})
_kconnect() {{
  local cur words flags cmd
  cur="${{COMP_WORDS[COMP_CWORD]}}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "{" ".join(commands)} --help --version" -- "$cur") )
    return
  fi
  cmd="${{COMP_WORDS[1]}}"
  case "$cmd" in
{chr(10).join(cases)}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
    return
  fi
  case "$cmd" in
    {connector_commands})
      if [ "$COMP_CWORD" -ge 3 ] || [ -z "$words" ]; then
        words="$words $(kconnect get connectors -o name 2>/dev/null)"
      fi;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}}
complete -o default -F _kconnect kconnect
"""
    if shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    return script


# --- the parser -----------------------------------------------------------------------
def add_ops_commands(sub: Any, root: argparse.ArgumentParser) -> None:
    """Register the operator commands on the ``kconnect`` sub-parsers."""
    common = _connection_options()

    p = command(
        sub,
        "get",
        "list connectors (state, tasks) or plugins",
        [
            "kconnect get connectors",
            "kconnect get connectors jdbc-source -o json",
            "kconnect get plugins --all --url http://connect:8083",
        ],
        parents=[common],
    )
    p.add_argument("resource", choices=("connectors", "connector", "plugins", "plugin"))
    p.add_argument("names", nargs="*", help="only these connectors")
    p.add_argument("--all", action="store_true", help="plugins: converters, transforms, ... too")
    p.set_defaults(func=_run(_get))

    p = command(
        sub,
        "describe",
        "show a connector (config, tasks, traces, offsets) or a plugin's config definition",
        ["kconnect describe connector jdbc-source", "kconnect describe plugin JdbcSourceConnector"],
        parents=[common],
    )
    p.add_argument("resource", choices=("connector", "plugin"))
    p.add_argument("names", nargs="+", metavar="NAME")
    p.set_defaults(func=_run(_describe))

    p = command(
        sub,
        "apply",
        "create or update connectors from .json/.properties files",
        [
            "kconnect apply -f jdbc-source.json",
            "kconnect apply -f source.properties -f sink.properties --dry-run",
            "kconnect apply -f config.json --name orders-sink",
        ],
        parents=[common],
    )
    p.add_argument("-f", "--file", action="append", required=True, help="connector config file")
    p.add_argument("--name", default=None, help="the connector's name (default: the file's)")
    p.add_argument(
        "--dry-run", action="store_true", help="validate and say what would change; change nothing"
    )
    p.set_defaults(func=_run(_apply))

    for verb, text in (
        ("pause", "pause connectors and their tasks"),
        ("resume", "resume paused or stopped connectors"),
        ("stop", "stop connectors (tasks shut down, offsets may then be altered)"),
        ("delete", "delete connectors"),
    ):
        p = command(sub, verb, text, [f"kconnect {verb} jdbc-source"], parents=[common])
        p.add_argument("names", nargs="+", metavar="[connector] NAME")
        p.set_defaults(func=_run(_lifecycle))

    p = command(
        sub,
        "restart",
        "restart connectors (and their tasks) or one task NAME/ID",
        [
            "kconnect restart jdbc-source --include-tasks --only-failed",
            "kconnect restart task jdbc-source/0",
        ],
        parents=[common],
    )
    p.add_argument("names", nargs="+", metavar="[connector|task] NAME")
    p.add_argument("--include-tasks", action="store_true", help="restart the tasks too")
    p.add_argument("--only-failed", action="store_true", help="only what is FAILED")
    p.set_defaults(func=_run(_restart))

    p = command(
        sub,
        "offsets",
        "get, alter or reset a connector's offsets (alter and reset need it STOPPED)",
        [
            "kconnect offsets get jdbc-source",
            "kconnect stop jdbc-source && kconnect offsets reset jdbc-source",
            "kconnect offsets alter jdbc-source -f offsets.json",
        ],
        parents=[common],
    )
    p.add_argument("action", choices=("get", "alter", "reset"))
    p.add_argument("name")
    p.add_argument("-f", "--file", default=None, help='alter: {"offsets": [...]} JSON file')
    p.set_defaults(func=_run(_offsets))

    p = command(
        sub,
        "validate",
        "check connector configs: errors per key, unknown keys with suggestions",
        [
            "kconnect validate -f jdbc-source.json",
            "kconnect validate -f jdbc-source.json --offline --strict   # in CI, no worker",
            "kconnect validate -f config.properties --name orders-sink",
        ],
        parents=[common],
    )
    p.add_argument("-f", "--file", action="append", required=True, help="connector config file")
    p.add_argument("--name", default=None, help="the connector's name (default: the file's)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit non-zero on unknown keys too, not only on errors (for CI)",
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="validate with the plugins installed here, without a worker",
    )
    p.add_argument(
        "--worker-config",
        default=None,
        help="offline: worker .properties for converters and plugin.path (default: JSON converters)",
    )
    p.add_argument("--plugin-path", action="append", default=None, help="offline: plugin.path")
    p.set_defaults(func=_validate_command)

    p = command(
        sub,
        "status",
        "connector and task states with each failure's cause; --watch follows",
        ["kconnect status", "kconnect status jdbc-source --watch --timeout 60"],
        parents=[common],
    )
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("-w", "--watch", action="store_true", help="then print each state change")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between polls (default 2)")
    p.add_argument("--timeout", type=float, default=None, help="stop watching after N seconds")
    p.set_defaults(func=_run(_status))

    p = command(
        sub,
        "completion",
        "print a shell completion script (bash or zsh)",
        ['eval "$(kconnect completion bash)"'],
    )
    p.add_argument("shell", choices=("bash", "zsh"))

    def _completion(args: argparse.Namespace) -> int:
        print(completion_script(args.shell, root))
        return 0

    p.set_defaults(func=_completion)
