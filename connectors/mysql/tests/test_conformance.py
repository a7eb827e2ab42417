"""The MySQL/MariaDB connectors against the kconnect-testkit source conformance suite.

Each scenario seeds a fresh database on the session's private MariaDB and snapshots it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_testkit import Scenario, SourceConnectorSuite

pytestmark = pytest.mark.integration

_WAIVERS = {
    "test_pipeline_delivers_every_record": "every Debezium envelope carries ts_ms/ts_us/ts_ns, the "
    "time the connector processed the change, so a second read (the suite's reference) never "
    "equals the pipeline's records byte for byte; tests/test_pipeline.py runs the connector "
    "through a worker and a broker and checks the records instead",
}


def _db_name(tmp_path: Path) -> str:
    return "kc_conf_" + hashlib.sha1(str(tmp_path).encode()).hexdigest()[:10]


class _MariaDbSuite(SourceConnectorSuite):
    server: ClassVar[Any] = None
    kafka: ClassVar[str] = ""
    waivers = _WAIVERS

    @pytest.fixture(autouse=True)
    def _services(self, kc_mariadb: Any, kc_kafka: str) -> None:
        type(self).server = kc_mariadb
        type(self).kafka = kc_kafka

    def scenario_config(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        config = super().scenario_config(scenario, tmp_path)
        server, db = self.server, _db_name(tmp_path)
        return {
            **config,
            "database.hostname": server.host,
            "database.port": str(server.port),
            "database.user": server.user,
            "database.password": server.password,
            "database.include.list": db,
            "schema.history.internal.kafka.bootstrap.servers": self.kafka,
            "schema.history.internal.kafka.topic": f"history.{db}",
            # Long enough that two empty polls mean "nothing more", not "still starting".
            "poll.interval.ms": "1500",
        }

    def seed_rows(self, tmp_path: Path) -> None:
        db = _db_name(tmp_path)
        conn = self.server.connect(autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE IF NOT EXISTS `{db}` CHARACTER SET utf8mb4")
                cur.execute(
                    f"CREATE TABLE IF NOT EXISTS `{db}`.items (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2))"
                )
                cur.execute(f"CREATE TABLE IF NOT EXISTS `{db}`.tags (tag VARCHAR(10) PRIMARY KEY)")
                cur.execute(f"SELECT COUNT(*) FROM `{db}`.items")
                if cur.fetchone()[0] == 0:
                    cur.execute(
                        f"INSERT INTO `{db}`.items VALUES (1, 'one', 1.10), (2, 'two', 2.20), (3, 'Zoë', NULL), (4, 'four', 4.40)"
                    )
                    cur.execute(f"INSERT INTO `{db}`.tags VALUES ('a'), ('b')")
        finally:
            conn.close()


_SCENARIOS = [
    Scenario(
        id="snapshot",
        config={"topic.prefix": "conf", "database.server.id": "5501"},
        seed="seed_rows",
        expected_records=6,
        deterministic=False,  # a restart mid-snapshot takes the snapshot again, as Debezium does
    ),
    Scenario(
        id="small-batches",
        config={
            "topic.prefix": "conf",
            "database.server.id": "5502",
            "max.batch.size": "2",
            "snapshot.fetch.size": "1",
        },
        seed="seed_rows",
        expected_records=6,
        deterministic=False,
    ),
]


class TestMySqlConnector(_MariaDbSuite):
    plugin = "io.debezium.connector.mysql.MySqlConnector"
    scenarios = _SCENARIOS


class TestMariaDbConnector(_MariaDbSuite):
    plugin = "io.debezium.connector.mariadb.MariaDbConnector"
    scenarios = _SCENARIOS[:1]
