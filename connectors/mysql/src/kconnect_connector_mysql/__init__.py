"""kconnect MySQL/MariaDB change data capture, compatible with Debezium's MySqlConnector and MariaDbConnector.

Example (the same properties Debezium takes)::

    name=inventory-connector
    connector.class=io.debezium.connector.mysql.MySqlConnector
    tasks.max=1
    database.hostname=localhost
    database.port=3306
    database.user=debezium
    database.password=dbz
    database.server.id=184054
    topic.prefix=dbserver1
    database.include.list=inventory
    schema.history.internal.kafka.bootstrap.servers=localhost:9092
    schema.history.internal.kafka.topic=schema-changes.inventory

Change events go to ``<topic.prefix>.<database>.<table>`` with Debezium's key and envelope
(``before``, ``after``, ``source``, ``op``, ``ts_ms``), offsets are Debezium's
(``{"server": <topic.prefix>}`` → ``file``, ``pos``, ``event``, ``row``, ``gtids``, ``ts_sec``),
so consumers and stored offsets carry over.
"""

from __future__ import annotations

from ._config import CONFIG_DEF
from ._connector import MariaDbConnector, MariaDbSourceTask, MySqlConnector
from ._task import MySqlSourceTask

__all__ = [
    "CONFIG_DEF",
    "MariaDbConnector",
    "MariaDbSourceTask",
    "MySqlConnector",
    "MySqlSourceTask",
]
