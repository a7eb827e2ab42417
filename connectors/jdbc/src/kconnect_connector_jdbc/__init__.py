"""kconnect JDBC source connector, compatible with Confluent's io.confluent.connect.jdbc.JdbcSourceConnector."""

from __future__ import annotations
