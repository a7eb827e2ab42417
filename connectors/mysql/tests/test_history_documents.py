"""How the schema history describes tables, and which tables it keeps.

The expected documents are Debezium 3.5's, as its MariaDbConnector wrote them for the same
columns in compat/tests/test_cdc.py (which compares the two connectors' history topics).
"""

from __future__ import annotations

from kconnect_connector_mysql._columns import Column, Table
from kconnect_connector_mysql._config import parse_settings

_BASE = {
    "name": "inventory",
    "topic.prefix": "inv",
    "database.hostname": "localhost",
    "database.user": "cdc",
    "database.include.list": "shop",
    "table.include.list": "shop.orders",
}


def _enum(name: str, kind: str, labels: list[str]) -> Column:
    return Column(
        name=name,
        position=1,
        data_type=kind,
        type_name=kind.upper(),
        charset="utf8mb4",
        enum_values=labels,
    )


def test_enum_and_set_columns_are_described_as_debezium_does() -> None:
    status = _enum("status", "enum", ["new", "paid", "it's"]).to_history()
    flags = _enum("flags", "set", ["x", "y", "z"]).to_history()
    assert status["enumValues"] == ["'new'", "'paid'", "'it''s'"]
    assert status["length"] == 1
    assert flags["enumValues"] == ["'x'", "'y'", "'z'"]
    assert flags["length"] == 5


def test_other_columns_have_an_empty_enum_value_list() -> None:
    doc = Column(name="id", position=1, data_type="int", type_name="INT", length=11).to_history()
    assert doc["enumValues"] == []
    assert doc["length"] == 11


def test_debezium_and_earlier_history_records_read_back_to_the_same_labels() -> None:
    debezium = {
        "name": "status",
        "jdbcType": 1,
        "typeName": "ENUM",
        "typeExpression": "ENUM",
        "charsetName": "utf8mb4",
        "length": 1,
        "position": 4,
        "optional": False,
        "hasDefaultValue": True,
        "defaultValueExpression": "new",
        "enumValues": ["'new'", "'paid'", "'it''s'"],
    }
    earlier = {**debezium, "enumValues": ["new", "paid", "it's"]}
    del earlier["length"]
    for doc in (debezium, earlier):
        column = Column.from_history(doc)
        assert column.enum_values == ["new", "paid", "it's"]
        assert column.to_history()["enumValues"] == debezium["enumValues"]
    plain = Column.from_history({"name": "n", "typeName": "INT", "enumValues": []})
    assert plain.enum_values is None


def test_the_table_comment_is_read_from_the_table_change() -> None:
    doc = Table(db="shop", name="orders", columns=[], comment="orders").to_history()
    assert "comment" not in doc  # Debezium keeps it beside the table, in the change
    assert Table.from_history("shop", "orders", doc, "orders").comment == "orders"


def test_store_only_captured_settings_choose_which_schemas_are_kept() -> None:
    default = parse_settings(_BASE).filters
    databases = parse_settings(
        {**_BASE, "schema.history.internal.store.only.captured.databases.ddl": "true"}
    ).filters
    tables = parse_settings(
        {**_BASE, "schema.history.internal.store.only.captured.tables.ddl": "true"}
    ).filters
    kept = {
        name: [
            f.schema_table(*t)
            for t in (("shop", "orders"), ("shop", "stock"), ("crm", "people"), ("mysql", "user"))
        ]
        for name, f in (("default", default), ("databases", databases), ("tables", tables))
    }
    assert kept == {
        "default": [True, True, True, False],
        "databases": [True, True, False, False],
        "tables": [True, False, False, False],
    }
