"""kconnect JDBC source connector, compatible with Confluent's JdbcSourceConnector.

Example:
    A connector config (the book's, unchanged)::

        connector.class=io.confluent.connect.jdbc.JdbcSourceConnector
        connection.url=jdbc:mysql://localhost:3306/inventory
        connection.user=connect
        connection.password=secret
        mode=timestamp+incrementing
        incrementing.column.name=id
        timestamp.column.name=timestamp
        table.whitelist=kafka_books
        topic.prefix=mysql-inc-

Records and offsets are Confluent's: a value struct named after the table, no key (unless
``record.key.mode=primary_key``), source partition ``{"protocol": "1", "table": "<db.table>"}``
and offsets ``{"incrementing": ..., "timestamp": ..., "timestamp_nanos": ...}``.
"""

from __future__ import annotations

from ._source import JdbcSourceConnector, JdbcSourceTask

__all__ = ["JdbcSourceConnector", "JdbcSourceTask"]
