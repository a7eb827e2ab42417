"""kconnect MySQL/MariaDB change data capture, compatible with Debezium's MySqlConnector and MariaDbConnector."""

from __future__ import annotations
