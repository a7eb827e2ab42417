"""MySqlConnector and MariaDbConnector: Debezium's connector classes, one task each."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigValue,
    ConnectError,
    ExactlyOnceSupport,
    SourceConnector,
)
from kconnect_sdk.kafka_clients import check_prefixed

from ._config import CONFIG_DEF, parse_settings
from ._history import HISTORY_CONSUMER_PREFIX, HISTORY_PRODUCER_PREFIX
from ._task import MySqlSourceTask
from ._version import package_version

__all__ = ["MariaDbConnector", "MariaDbSourceTask", "MySqlConnector"]

log = logging.getLogger(__name__)


class MariaDbSourceTask(MySqlSourceTask):
    """The task of :class:`MariaDbConnector`: ``source.connector`` is ``mariadb``."""

    connector_name = "mariadb"
    kafka_class_name = "io.debezium.connector.mariadb.MariaDbConnectorTask"


class MySqlConnector(SourceConnector):
    """Change data capture from a MySQL (or MariaDB) binlog, as Debezium's MySqlConnector.

    Always one task: a binlog is one ordered stream.
    """

    task_type: type[MySqlSourceTask] = MySqlSourceTask

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return package_version()

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        settings = parse_settings(props)
        self._props = dict(props)
        log.info("Starting %s for topic prefix %r", type(self).__name__, settings.prefix)

    def task_class(self) -> type[MySqlSourceTask]:
        return self.task_type

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        """Nothing runs in the connector itself."""

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        """Per-key results; also connects to the server and checks binlog settings and grants."""
        results = CONFIG_DEF.validate(props)
        # The schema history's Kafka clients: settings librdkafka cannot honour are refused
        # now, not when the task starts.
        for key, message in check_prefixed(
            props, (HISTORY_PRODUCER_PREFIX, HISTORY_CONSUMER_PREFIX)
        ):
            results.append(ConfigValue(key, props.get(key), [], [message]))
        by_name = {r.name: r for r in results}
        if any(r.error_messages for r in results):
            return results
        try:
            settings = parse_settings(props)
        except ConfigError as exc:
            target = by_name.get(exc.name or "") if hasattr(exc, "name") else None
            (target or results[0]).add_error_message(str(exc))
            return results
        from . import _database as db

        try:
            conn = db.connect(settings)
        except ConnectError as exc:
            by_name["database.hostname"].add_error_message(str(exc))
            return results
        try:
            for key, message in db.check_prerequisites(conn, settings):
                by_name[key].add_error_message(message)
        finally:
            conn.close()
        return results

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        for partition, offset in offsets:
            if partition is None or "server" not in partition:
                raise ConnectError(f'Partition {partition!r} is not {{"server": "<topic.prefix>"}}')
            if offset is None:
                continue
            if "file" not in offset or not isinstance(offset.get("pos"), int):
                raise ConnectError(
                    f"Offset {dict(offset)!r} needs 'file' (a binlog file name) and 'pos' (an integer position)"
                )
        return True


class MariaDbConnector(MySqlConnector):
    """Debezium's MariaDbConnector: the same connector, ``source.connector`` ``mariadb``."""

    task_type = MariaDbSourceTask
