"""A DDL parser for the MySQL/MariaDB statements that change table structure.

Debezium applies each DDL statement of the binlog to its in-memory table definitions at
the statement's position (its ANTLR ``MySqlAntlrDdlParser``); this module does the same
with a tokenizer and a small recursive-descent parser, so the schemas of later events
never depend on what the live database looks like when the connector reads the binlog.

Understood: CREATE TABLE (column definitions, types with length/precision/unsigned/
charset/collation, NULL/NOT NULL, DEFAULT, AUTO_INCREMENT, COMMENT, generated columns,
PRIMARY KEY / UNIQUE / KEY / FOREIGN KEY / CHECK definitions, table options, LIKE),
ALTER TABLE (ADD/DROP/MODIFY/CHANGE/RENAME COLUMN, ALTER COLUMN SET/DROP DEFAULT,
ADD/DROP PRIMARY KEY, RENAME TO, CONVERT TO CHARACTER SET, DEFAULT CHARSET), RENAME
TABLE, DROP TABLE, TRUNCATE, CREATE/ALTER/DROP DATABASE, CREATE/DROP INDEX, USE, and
MariaDB's ``SET STATEMENT ... FOR`` prefix. Types are recorded as the server stores them
(synonyms resolved, default lengths filled in), matching what the snapshot reads. Other
statements change no table. A statement the parser cannot follow raises
:class:`DdlParseError`; the task then fails or, with
``schema.history.internal.skip.unparseable.ddl``, logs and skips it, as Debezium does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ._columns import Column, Table, default_expression

__all__ = ["DdlParseError", "SchemaState", "TableChange"]


class DdlParseError(Exception):
    """The statement is not one the parser can follow."""


@dataclass(frozen=True, slots=True)
class TableChange:
    """One table-level effect of a statement, in Debezium's terms."""

    type: str  # CREATE, ALTER, DROP, TRUNCATE
    key: tuple[str, str]
    previous: tuple[str, str] | None = None  # the old name of a renamed table
    statement: str = ""


# --- tokenizer ---------------------------------------------------------------------------------

# Token kinds: "w" a bare word, "q" a back-quoted identifier, "s" a string literal,
# "n" a number, "p" punctuation.
Token = tuple[str, str]
_PUNCT: Final = set("(),.;=@+-*/<>!~%&|^:?{}[]")


def tokenize(sql: str) -> list[Token]:
    """The statement's tokens; comments dropped, version comments (``/*!50100 ...*/``) kept."""
    out: list[Token] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c.isspace():
            i += 1
        elif c == "#" or (
            c == "-" and sql.startswith("--", i) and (i + 2 >= n or sql[i + 2] in " \t\r\n")
        ):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif c == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            if end < 0:
                raise DdlParseError("unterminated comment")
            body = sql[i + 2 : end]
            # MySQL's /*!NNNNN text */ and MariaDB's /*M!NNNNNN text */ are executed.
            if body.startswith("!") or body.startswith("M!"):
                body = body[1:] if body[0] == "!" else body[2:]
                j = 0
                while j < len(body) and body[j].isdigit():
                    j += 1
                out.extend(tokenize(body[j:]))
            i = end + 2
        elif c == "`":
            j = i + 1
            parts: list[str] = []
            while True:
                k = sql.find("`", j)
                if k < 0:
                    raise DdlParseError("unterminated quoted identifier")
                parts.append(sql[j:k])
                if sql.startswith("``", k):
                    parts.append("`")
                    j = k + 2
                    continue
                i = k + 1
                break
            out.append(("q", "".join(parts)))
        elif c in "'\"":
            j = i + 1
            buf: list[str] = []
            while True:
                if j >= n:
                    raise DdlParseError("unterminated string literal")
                d = sql[j]
                if d == "\\" and j + 1 < n:
                    buf.append(_ESCAPES.get(sql[j + 1], sql[j + 1]))
                    j += 2
                elif d == c:
                    if sql.startswith(c + c, j):
                        buf.append(c)
                        j += 2
                    else:
                        j += 1
                        break
                else:
                    buf.append(d)
                    j += 1
            # A double-quoted string is an identifier under ANSI_QUOTES; treat as a string,
            # which is what the default sql_mode means.
            out.append(("s", "".join(buf)))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and sql[i + 1].isdigit()):
            j = i
            while j < n and (sql[j].isalnum() or sql[j] == "." or sql[j] == "_"):
                if sql[j] in "eE" and j + 1 < n and sql[j + 1] in "+-":
                    j += 1
                j += 1
            text = sql[i:j]
            # 1e5, 0x1F and 12abc (an identifier starting with digits) all occur.
            out.append(("n" if _is_number(text) else "w", text))
            i = j
        elif c.isalpha() or c in "_$" or ord(c) > 127:
            j = i + 1
            while j < n and (sql[j].isalnum() or sql[j] in "_$" or ord(sql[j]) > 127):
                j += 1
            word = sql[i:j]
            # Charset introducers and hex/bit literals: _utf8mb4'x', x'4A', b'101'.
            if j < n and sql[j] == "'" and (word[0] == "_" or word.lower() in ("x", "b", "n")):
                rest = tokenize_literal(sql, j)
                if word.lower() in ("x", "b"):
                    out.append(("n", f"{word}'{rest[0]}'"))
                else:
                    out.append(("s", rest[0]))
                i = rest[1]
                continue
            out.append(("w", word))
            i = j
        elif c in _PUNCT:
            out.append(("p", c))
            i += 1
        else:
            raise DdlParseError(f"unexpected character {c!r}")
    return out


_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "Z": "\x1a"}


def tokenize_literal(sql: str, i: int) -> tuple[str, int]:
    """The string literal starting at ``sql[i]`` (a quote) and the index after it."""
    quote = sql[i]
    j = i + 1
    buf: list[str] = []
    while j < len(sql):
        d = sql[j]
        if d == "\\" and j + 1 < len(sql):
            buf.append(_ESCAPES.get(sql[j + 1], sql[j + 1]))
            j += 2
        elif d == quote:
            if sql.startswith(quote * 2, j):
                buf.append(quote)
                j += 2
            else:
                return "".join(buf), j + 1
        else:
            buf.append(d)
            j += 1
    raise DdlParseError("unterminated string literal")


def _is_number(text: str) -> bool:
    if text.lower().startswith("0x"):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


# --- types -------------------------------------------------------------------------------------

_TEXT_TYPES: Final = frozenset(
    {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"}
)
# Synonyms, to the names information_schema.COLUMNS.DATA_TYPE reports.
_SYNONYMS: Final = {
    "integer": "int",
    "int4": "int",
    "int1": "tinyint",
    "int2": "smallint",
    "int3": "mediumint",
    "int8": "bigint",
    "middleint": "mediumint",
    "dec": "decimal",
    "fixed": "decimal",
    "numeric": "decimal",
    "real": "double",
    "float4": "float",
    "float8": "double",
    "character": "char",
    "nchar": "char",
    "nvarchar": "varchar",
    "varcharacter": "varchar",
    "bool": "tinyint",
    "boolean": "tinyint",
    "long": "mediumtext",
    "serial": "bigint",
}
_KNOWN_TYPES: Final = frozenset(
    {
        "bit",
        "tinyint",
        "smallint",
        "mediumint",
        "int",
        "bigint",
        "float",
        "double",
        "decimal",
        "char",
        "varchar",
        "binary",
        "varbinary",
        "tinytext",
        "text",
        "mediumtext",
        "longtext",
        "tinyblob",
        "blob",
        "mediumblob",
        "longblob",
        "enum",
        "set",
        "date",
        "time",
        "datetime",
        "timestamp",
        "year",
        "json",
        "geometry",
        "point",
        "linestring",
        "polygon",
        "multipoint",
        "multilinestring",
        "multipolygon",
        "geometrycollection",
        "geomcollection",
        "uuid",
        "inet4",
        "inet6",
        "vector",
    }
)


def charset_of_collation(collation: str, fallback: str | None) -> str | None:
    """The character set a collation belongs to (utf8mb4_bin -> utf8mb4)."""
    name = collation.lower()
    if name == "binary":
        return "binary"
    if name.startswith("uca1400"):  # MariaDB 11's charset-less collations
        return fallback
    return _charset(name.split("_", 1)[0])


def _charset(name: str) -> str:
    """A charset name as the server reports it: lower case, ``utf8`` as ``utf8mb3``."""
    lowered = name.lower()
    return "utf8mb3" if lowered == "utf8" else lowered


# --- parser ------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.i = 0

    # token helpers
    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def word(self, k: int = 0) -> str:
        """The upper-cased bare word at +k, or '' when it is not a bare word."""
        t = self.peek(k)
        return t[1].upper() if t is not None and t[0] == "w" else ""

    def punct(self, k: int = 0) -> str:
        t = self.peek(k)
        return t[1] if t is not None and t[0] == "p" else ""

    def at_end(self) -> bool:
        return self.i >= len(self.toks) or self.punct() == ";"

    def next(self) -> Token:
        t = self.peek()
        if t is None:
            raise DdlParseError("unexpected end of statement")
        self.i += 1
        return t

    def accept(self, *words: str) -> bool:
        """Consume the given bare words in sequence if they are next."""
        for k, w in enumerate(words):
            if self.word(k) != w:
                return False
        self.i += len(words)
        return True

    def accept_p(self, p: str) -> bool:
        if self.punct() == p:
            self.i += 1
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise DdlParseError(f"expected {' '.join(words)} near {self.near()}")

    def expect_p(self, p: str) -> None:
        if not self.accept_p(p):
            raise DdlParseError(f"expected {p!r} near {self.near()}")

    def near(self) -> str:
        return " ".join(t[1] for t in self.toks[self.i : self.i + 5]) or "the end"

    def ident(self) -> str:
        t = self.next()
        if t[0] in ("w", "q", "s"):
            return t[1]
        raise DdlParseError(f"expected a name near {t[1]!r}")

    def qualified(self) -> tuple[str | None, str]:
        first = self.ident()
        if self.punct() == "." and self.peek(1) is not None:
            self.i += 1
            return first, self.ident()
        return None, first

    def skip_parens(self) -> None:
        """Skip a balanced ( ... ) group starting at the current '('."""
        self.expect_p("(")
        depth = 1
        while depth:
            t = self.next()
            if t[0] == "p":
                if t[1] == "(":
                    depth += 1
                elif t[1] == ")":
                    depth -= 1

    def skip_to_item_end(self) -> None:
        """Skip to the ',' or ')' (not consumed) or the end of the statement, at depth 0."""
        while not self.at_end():
            p = self.punct()
            if p in (",", ")"):
                return
            if p == "(":
                self.skip_parens()
            else:
                self.i += 1

    def skip_statement(self) -> None:
        while not self.at_end():
            if self.punct() == "(":
                self.skip_parens()
            else:
                self.i += 1

    def key_parts(self) -> list[str]:
        """(col[(len)] [ASC|DESC], ...) -> the column names."""
        self.expect_p("(")
        names: list[str] = []
        while True:
            if self.punct() == "(":  # a functional key part: no column
                self.skip_parens()
            else:
                names.append(self.ident())
                if self.punct() == "(":
                    self.skip_parens()
            self.accept("ASC") or self.accept("DESC")
            if self.accept_p(","):
                continue
            self.expect_p(")")
            return names

    def literal_text(self) -> str | None:
        """A DEFAULT value as Debezium records its expression; None for NULL."""
        if self.accept_p("("):
            # An expression default: keep its text.
            start = self.i - 1
            self.i = start
            self.skip_parens()
            return " ".join(t[1] for t in self.toks[start : self.i])
        sign = ""
        while self.punct() in ("-", "+"):
            sign = ("-" if sign != "-" else "") if self.next()[1] == "-" else sign
        t = self.next()
        if t[0] == "w" and t[1].upper() == "NULL":
            return None
        if t[0] == "w" and t[1].upper() in ("TRUE", "FALSE"):
            return "1" if t[1].upper() == "TRUE" else "0"  # stored as TINYINT(1)
        if t[0] == "w" and self.punct() == "(":
            # CURRENT_TIMESTAMP(3), NOW(), UUID() ...
            start = self.i
            self.skip_parens()
            return default_expression(t[1] + "".join(x[1] for x in self.toks[start : self.i]))
        if t[0] == "w":
            return default_expression(sign + t[1])
        return sign + t[1]


@dataclass(slots=True)
class _ColumnSpec:
    column: Column
    primary: bool = False
    explicit_charset: bool = False
    serial: bool = False


class SchemaState:
    """The table definitions the binlog's DDL is applied to, and the databases' charsets.

    ``tables`` holds captured tables only (``captured(db, table)`` says which); DDL on
    other tables is understood but not kept.
    """

    def __init__(
        self,
        *,
        captured: Callable[[str, str], bool],
        mariadb: bool = True,
        server_charset: str | None = None,
    ) -> None:
        self.tables: dict[tuple[str, str], Table] = {}
        self.db_charsets: dict[str, str | None] = {}
        self.captured = captured
        self.mariadb = mariadb
        self.server_charset = server_charset

    # --- entry point ---------------------------------------------------------------------------

    def apply(self, sql: str, default_db: str | None) -> list[TableChange]:
        """Apply every statement of ``sql`` to the definitions; the table changes, in order.

        Raises:
            DdlParseError: a statement could not be followed; the definitions are then left
                as they were before the failing statement.
        """
        tokens = tokenize(sql)
        if _is_routine(tokens):
            # A routine, trigger or event body holds statements of its own (run later, if
            # ever): none of them changes a table now.
            return []
        changes: list[TableChange] = []
        start = 0
        for end in [*(k for k, t in enumerate(tokens) if t == ("p", ";")), len(tokens)]:
            part = tokens[start:end]
            start = end + 1
            if not part:
                continue
            p = _Parser(part)
            if p.accept("USE"):
                default_db = p.ident()
                continue
            changes.extend(self._statement(p, default_db, sql))
        return changes

    def _statement(self, p: _Parser, db: str | None, sql: str) -> list[TableChange]:
        if p.accept("SET", "STATEMENT"):  # MariaDB: SET STATEMENT var=value, ... FOR <stmt>
            while not p.at_end() and not p.accept("FOR"):
                p.next()
        verb = p.word()
        if verb == "CREATE":
            p.next()
            replace = p.accept("OR", "REPLACE")
            if p.accept("DEFINER"):
                p.expect_p("=")
                self._skip_definer(p)
            if p.accept("TEMPORARY"):
                return []  # temporary tables are not replicated as rows
            if p.accept("TABLE"):
                return self._create_table(p, db, replace, sql)
            if p.word() in ("DATABASE", "SCHEMA"):
                p.next()
                return self._create_database(p, replace)
            if p.word() in ("UNIQUE", "FULLTEXT", "SPATIAL", "INDEX"):
                return self._create_index(p, db, sql)
            return []  # views, routines, triggers, users, events, sequences ...
        if verb == "ALTER":
            p.next()
            p.accept("ONLINE")
            p.accept("IGNORE")
            if p.accept("TABLE"):
                return self._alter_table(p, db, sql)
            if p.word() in ("DATABASE", "SCHEMA"):
                p.next()
                self._alter_database(p, db)
            return []
        if verb == "DROP":
            p.next()
            if p.accept("TEMPORARY"):
                return []
            if p.accept("TABLE") or p.accept("TABLES"):
                return self._drop_tables(p, db, sql)
            if p.word() in ("DATABASE", "SCHEMA"):
                p.next()
                return self._drop_database(p, sql)
            if p.accept("INDEX"):
                p.accept("IF", "EXISTS")
                p.ident()
                p.expect("ON")
                key = self._key(p.qualified(), db)
                if key in self.tables:
                    return [TableChange("ALTER", key, None, sql)]
            return []
        if verb == "RENAME":
            p.next()
            if p.accept("TABLE") or p.accept("TABLES"):
                return self._rename_tables(p, db, sql)
            return []
        if verb == "TRUNCATE":
            p.next()
            p.accept("TABLE")
            key = self._key(p.qualified(), db)
            return [TableChange("TRUNCATE", key, None, sql)] if key in self.tables else []
        return []

    @staticmethod
    def _skip_definer(p: _Parser) -> None:
        p.ident()
        if p.punct() == "@":
            p.next()
            p.ident()
        elif p.peek() is not None and p.peek()[1].startswith("@"):  # type: ignore[index]
            p.next()

    @staticmethod
    def _key(name: tuple[str | None, str], db: str | None) -> tuple[str, str]:
        schema, table = name
        schema = schema if schema is not None else db
        if not schema:
            raise DdlParseError(
                f"table {table!r} is not qualified and there is no current database"
            )
        return schema, table

    # --- databases -----------------------------------------------------------------------------

    def _db_options(self, p: _Parser) -> tuple[str | None, str | None]:
        charset: str | None = None
        collation: str | None = None
        while not p.at_end():
            p.accept("DEFAULT")
            if p.accept("CHARACTER", "SET") or p.accept("CHARSET"):
                p.accept_p("=")
                charset = _charset(p.ident())
            elif p.accept("COLLATE"):
                p.accept_p("=")
                collation = p.ident().lower()
            else:
                p.next()
        if charset is None and collation is not None:
            charset = charset_of_collation(collation, None)
        return charset, collation

    def _create_database(self, p: _Parser, replace: bool) -> list[TableChange]:
        exists = p.accept("IF", "NOT", "EXISTS")
        name = p.ident()
        charset, _ = self._db_options(p)
        if exists and name in self.db_charsets:
            return []
        if replace:
            self._drop_database_tables(name)
        self.db_charsets[name] = charset or self.server_charset
        return []

    def _alter_database(self, p: _Parser, db: str | None) -> None:
        name = db
        if p.word() not in ("DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "UPGRADE", "COMMENT"):
            name = p.ident()
        charset, _ = self._db_options(p)
        if name and charset:
            self.db_charsets[name] = charset

    def _drop_database(self, p: _Parser, sql: str) -> list[TableChange]:
        p.accept("IF", "EXISTS")
        name = p.ident()
        self.db_charsets.pop(name, None)
        return self._drop_database_tables(name, sql)

    def _drop_database_tables(self, name: str, sql: str = "") -> list[TableChange]:
        keys = sorted(k for k in self.tables if k[0] == name)
        for key in keys:
            del self.tables[key]
        return [TableChange("DROP", key, None, sql) for key in keys]

    # --- CREATE TABLE --------------------------------------------------------------------------

    def _table_charset(self, db: str) -> str | None:
        return self.db_charsets.get(db) or self.server_charset

    def _create_table(
        self, p: _Parser, db: str | None, replace: bool, sql: str
    ) -> list[TableChange]:
        if_not_exists = p.accept("IF", "NOT", "EXISTS")
        key = self._key(p.qualified(), db)
        exists = key in self.tables
        if if_not_exists and exists:
            return []
        like: tuple[str, str] | None = None
        if p.accept("LIKE"):
            like = self._key(p.qualified(), db)
        elif p.punct() == "(" and p.word(1) == "LIKE":
            p.next()
            p.next()
            like = self._key(p.qualified(), db)
            p.expect_p(")")
        if like is not None:
            source = self.tables.get(like)
            if source is None:
                if not self.captured(*key):
                    return []
                raise DdlParseError(
                    f"CREATE TABLE {key[0]}.{key[1]} LIKE {like[0]}.{like[1]}: the connector has no "
                    "definition of the source table (it is not captured)"
                )
            table = copy.deepcopy(source)
            table.db, table.name = key
            return self._put(key, table, "CREATE", sql)
        if p.punct() != "(":
            # CREATE TABLE ... SELECT without a column list: the binlog (ROW format) logs an
            # explicit CREATE TABLE instead, so this only occurs for statement-based logs.
            raise DdlParseError("CREATE TABLE without a column list")
        p.expect_p("(")
        specs: list[_ColumnSpec] = []
        primary: list[str] = []
        while True:
            w = p.word()
            if w == "CONSTRAINT":
                p.next()
                if p.word() not in ("PRIMARY", "UNIQUE", "FOREIGN", "CHECK"):
                    p.ident()
                w = p.word()
            if w == "PRIMARY":
                p.expect("PRIMARY", "KEY")
                self._skip_index_name_and_type(p)
                primary = p.key_parts()
                p.skip_to_item_end()
            elif w in (
                "UNIQUE",
                "INDEX",
                "KEY",
                "FULLTEXT",
                "SPATIAL",
                "FOREIGN",
                "CHECK",
            ) or (w, p.word(1)) in (("PERIOD", "FOR"), ("SYSTEM", "VERSIONING")):
                p.skip_to_item_end()
            else:
                specs.append(self._column_def(p, key[0], None))
            if p.accept_p(","):
                continue
            p.expect_p(")")
            break
        charset, _collation, comment = self._table_options(p)
        table_charset = charset or self._table_charset(key[0])
        columns = []
        for pos, spec in enumerate(specs, 1):
            column = spec.column
            column.position = pos
            if spec.primary and column.name not in primary:
                primary.append(column.name)
            columns.append(column)
        if not primary:
            primary = [spec.column.name for spec in specs if spec.serial][:1]
        table = Table(
            db=key[0],
            name=key[1],
            columns=columns,
            primary_key=[],
            default_charset=table_charset,
            comment=comment,
        )
        for column in columns:
            if column.data_type in _TEXT_TYPES and column.charset is None:
                column.charset = table_charset
        self._set_primary_key(table, primary)
        return self._put(key, table, "CREATE", sql)

    def _put(self, key: tuple[str, str], table: Table, kind: str, sql: str) -> list[TableChange]:
        if not self.captured(*key):
            return []
        self.tables[key] = table
        return [TableChange(kind, key, None, sql)]

    @staticmethod
    def _skip_index_name_and_type(p: _Parser) -> None:
        if p.punct() != "(" and p.word() not in ("USING", "TYPE"):
            p.ident()
        if p.accept("USING") or p.accept("TYPE"):
            p.ident()

    def _set_primary_key(self, table: Table, names: list[str]) -> None:
        by_name = {c.name.lower(): c for c in table.columns}
        resolved = []
        for name in names:
            column = by_name.get(name.lower())
            if column is None:
                raise DdlParseError(f"primary key column {name!r} is not a column of {table.id}")
            column.optional = False
            column.has_default = column.default_expression is not None
            resolved.append(column.name)
        table.primary_key = resolved

    def _table_options(self, p: _Parser) -> tuple[str | None, str | None, str | None]:
        charset = collation = comment = None
        while not p.at_end():
            if p.accept_p(","):
                continue
            if p.word() in ("PARTITION", "AS", "SELECT", "IGNORE", "REPLACE", "WITH"):
                p.skip_statement()
                break
            if p.punct() == "(":  # (SELECT ...)
                p.skip_statement()
                break
            p.accept("DEFAULT")
            if p.accept("CHARACTER", "SET") or p.accept("CHARSET"):
                p.accept_p("=")
                charset = _charset(p.ident())
            elif p.accept("COLLATE"):
                p.accept_p("=")
                collation = p.ident().lower()
            elif p.accept("COMMENT"):
                p.accept_p("=")
                comment = p.next()[1]
            else:
                p.next()
                if p.accept_p("="):
                    if p.punct() == "(":
                        p.skip_parens()
                    else:
                        p.next()
        if charset is None and collation is not None:
            charset = charset_of_collation(collation, None)
        return charset, collation, comment

    # --- column definitions --------------------------------------------------------------------

    def _column_def(self, p: _Parser, db: str, name: str | None) -> _ColumnSpec:
        """``name type attributes``; ``name`` given when the caller already read it."""
        if name is None:
            name = p.ident()
        type_word = p.ident().lower()
        spec = self._data_type(p, type_word)
        column = spec.column
        column.name = name
        explicit_null: bool | None = None
        default_set = False
        while not p.at_end() and p.punct() not in (",", ")"):
            w = p.word()
            if p.accept("NOT", "NULL"):
                explicit_null = False
            elif w == "NULL":
                p.next()
                explicit_null = True
            elif w == "DEFAULT":
                p.next()
                column.default_expression = p.literal_text()
                default_set = True
            elif w == "AUTO_INCREMENT":
                p.next()
                column.auto_incremented = True
            elif p.accept("PRIMARY", "KEY"):
                spec.primary = True
            elif w == "KEY":
                p.next()
                spec.primary = True  # a bare KEY in a column definition means PRIMARY KEY
            elif w == "UNIQUE":
                p.next()
                p.accept("KEY")
            elif w == "COMMENT":
                p.next()
                column.comment = p.next()[1]
            elif w in ("CHARACTER", "CHARSET"):
                p.accept("CHARACTER", "SET") or p.next()
                column.charset = _charset(p.ident())
                spec.explicit_charset = True
            elif w == "COLLATE":
                p.next()
                collation = p.ident().lower()
                if not spec.explicit_charset and column.data_type in _TEXT_TYPES:
                    column.charset = charset_of_collation(collation, column.charset)
            elif w == "ON" and p.word(1) == "UPDATE":
                p.next()
                p.next()
                p.literal_text()
            elif w in ("GENERATED", "AS"):
                p.accept("GENERATED", "ALWAYS")
                p.expect("AS")
                p.skip_parens()
                column.generated = True
                p.accept("VIRTUAL") or p.accept("STORED") or p.accept("PERSISTENT")
            elif w in ("CHECK",):
                p.next()
                p.skip_parens()
            elif w == "CONSTRAINT":
                p.next()
                if p.word() != "CHECK":
                    p.ident()
            elif w == "REFERENCES":
                p.next()
                p.qualified()
                if p.punct() == "(":
                    p.skip_parens()
                while p.word() in ("MATCH", "ON"):
                    if p.accept("MATCH"):
                        p.next()
                    else:
                        p.next()
                        p.next()
                        if not (p.accept("RESTRICT") or p.accept("CASCADE")):
                            p.accept("SET", "NULL") or p.accept("SET", "DEFAULT") or p.accept(
                                "NO", "ACTION"
                            )
            elif w in ("COLUMN_FORMAT", "STORAGE", "SRID", "WITH", "ENGINE_ATTRIBUTE"):
                p.next()
                p.accept_p("=")
                p.next()
            elif w in ("INVISIBLE", "VISIBLE", "SERIAL", "COMPRESSED"):
                p.next()
                if w == "SERIAL":  # SERIAL DEFAULT VALUE
                    p.accept("DEFAULT", "VALUE")
                    column.auto_incremented = True
                    explicit_null = False
                p.accept_p("=")
            elif w in ("FIRST", "AFTER"):
                break  # the caller's position clause
            else:
                raise DdlParseError(f"unexpected {p.near()!r} in the definition of column {name!r}")
        if type_word == "serial":  # BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
            # Debezium also marks it generated, and makes it the key of a table without one.
            column.auto_incremented = column.generated = spec.serial = True
            if explicit_null is None:
                explicit_null = False
        if explicit_null is not None:
            column.optional = explicit_null
        elif column.data_type == "timestamp" and not self.mariadb:
            column.optional = True
        if spec.primary:
            column.optional = False
        column.has_default = (
            default_set and column.default_expression is not None
        ) or column.optional
        return spec

    def _data_type(self, p: _Parser, word: str) -> _ColumnSpec:
        # Multi-word type names.
        national = False
        if word == "national":
            national = True
            word = p.ident().lower()
        if word == "double":
            p.accept("PRECISION")
        elif word in ("character", "char") and p.word() == "VARYING":
            p.next()
            word = "varchar"
        elif word == "long":
            if p.accept("VARBINARY"):
                word = "mediumblob"
            elif p.accept("VARCHAR") or p.accept("VARCHARACTER"):
                word = "mediumtext"
        if word in ("nchar", "nvarchar"):
            national = True
        base = _SYNONYMS.get(word, word)
        unsigned_default = word == "serial"
        if base not in _KNOWN_TYPES:
            raise DdlParseError(f"unknown column type {word!r}")
        if self.mariadb and base == "json":
            base = "longtext"  # MariaDB's JSON is LONGTEXT (with a json_valid CHECK)
        length: int | None = None
        scale: int | None = None
        enum_values: list[str] | None = None
        if p.punct() == "(":
            p.next()
            if base in ("enum", "set"):
                enum_values = []
                while True:
                    t = p.next()
                    if t[0] != "s":
                        raise DdlParseError(f"{base.upper()} values must be strings near {t[1]!r}")
                    enum_values.append(t[1])
                    if p.accept_p(","):
                        continue
                    p.expect_p(")")
                    break
            else:
                # DECIMAL(19.5) and FLOAT(7.4) occur; the server reads the integer part.
                length = int(float(p.next()[1]))
                if p.accept_p(","):
                    scale = int(float(p.next()[1]))
                p.expect_p(")")
        unsigned = unsigned_default
        zerofill = False
        charset: str | None = None
        explicit_charset = False
        while True:
            if p.accept("UNSIGNED"):
                unsigned = True
            elif p.accept("SIGNED"):
                unsigned = False
            elif p.accept("ZEROFILL"):
                zerofill = True
                unsigned = True
            elif p.accept("BINARY"):
                pass  # a binary collation of the column's charset
            elif p.accept("ASCII"):
                charset, explicit_charset = "latin1", True
            elif p.accept("UNICODE"):
                charset, explicit_charset = "ucs2", True
            elif p.accept("BYTE"):
                base = {"char": "binary", "varchar": "varbinary"}.get(base, base)
            elif p.word() in ("CHARACTER", "CHARSET") and (
                p.word(1) == "SET" or p.word() == "CHARSET"
            ):
                p.accept("CHARACTER", "SET") or p.next()
                p.accept_p("=")
                charset, explicit_charset = _charset(p.ident()), True
            else:
                break
        # How the server stores the synonyms and omitted sizes.
        if word in ("bool", "boolean"):
            length = 1
        if base == "float" and length is not None and scale is None:
            if length > 24:
                base = "double"
            length = None
        if base == "decimal":
            if not length:
                length = 10
            if scale is None:
                scale = 0
        if base in ("char", "binary", "bit") and length is None:
            length = 1
        if charset == "binary" and base in ("char", "varchar"):
            base = "binary" if base == "char" else "varbinary"
            charset = None
        if national and charset is None:
            charset = "utf8mb3"
            explicit_charset = True
        type_name = base.upper()
        if unsigned and base in (
            "tinyint",
            "smallint",
            "mediumint",
            "int",
            "bigint",
            "float",
            "double",
            "decimal",
        ):
            type_name += " UNSIGNED"
        if zerofill:
            type_name += " ZEROFILL"
        column = Column(
            name="",
            position=0,
            data_type=base,
            type_name=type_name,
            length=length,
            scale=scale,
            charset=charset if base in _TEXT_TYPES else None,
            enum_values=enum_values,
        )
        return _ColumnSpec(column=column, explicit_charset=explicit_charset)

    # --- ALTER TABLE ---------------------------------------------------------------------------

    def _alter_table(self, p: _Parser, db: str | None, sql: str) -> list[TableChange]:
        p.accept("IF", "EXISTS")
        key = self._key(p.qualified(), db)
        current = self.tables.get(key)
        table = copy.deepcopy(current) if current is not None else None
        new_key = key
        changed = False
        while not p.at_end():
            if p.accept_p(","):
                continue
            w = p.word()
            if table is None:
                # Not a table we keep; a rename may still bring it into the captured set.
                if w == "RENAME" and p.word(1) not in ("COLUMN", "INDEX", "KEY"):
                    p.next()
                    p.accept("TO") or p.accept("AS")
                    target = self._key(p.qualified(), key[0])
                    if self.captured(*target):
                        raise DdlParseError(
                            f"table {key[0]}.{key[1]}, which the connector does not capture, was "
                            f"renamed to {target[0]}.{target[1]}, which it captures; its definition "
                            "is unknown"
                        )
                    continue
                p.skip_to_item_end()
                continue
            if w == "ADD":
                p.next()
                changed |= self._alter_add(p, table)
            elif w == "DROP":
                p.next()
                changed |= self._alter_drop(p, table)
            elif w == "MODIFY":
                p.next()
                p.accept("COLUMN")
                if_exists = p.accept("IF", "EXISTS")
                name = p.ident()
                old = _find(table, name)
                if old is None:
                    if if_exists:
                        p.skip_to_item_end()
                        continue
                    raise DdlParseError(f"MODIFY of unknown column {name!r} of {table.id}")
                spec = self._column_def(p, key[0], old.name)
                self._replace_column(table, old, spec, p)
                changed = True
            elif w == "CHANGE":
                p.next()
                p.accept("COLUMN")
                if_exists = p.accept("IF", "EXISTS")
                name = p.ident()
                old = _find(table, name)
                if old is None:
                    if if_exists:
                        p.skip_to_item_end()
                        continue
                    raise DdlParseError(f"CHANGE of unknown column {name!r} of {table.id}")
                spec = self._column_def(p, key[0], None)
                self._replace_column(table, old, spec, p)
                changed = True
            elif w == "RENAME":
                p.next()
                if p.accept("COLUMN"):
                    p.accept("IF", "EXISTS")
                    old_name = p.ident()
                    p.expect("TO")
                    new_name = p.ident()
                    column = _find(table, old_name)
                    if column is None:
                        raise DdlParseError(f"RENAME COLUMN of unknown column {old_name!r}")
                    table.primary_key = [
                        new_name if n == column.name else n for n in table.primary_key
                    ]
                    column.name = new_name
                    changed = True
                elif p.word() in ("INDEX", "KEY"):
                    p.skip_to_item_end()
                else:
                    p.accept("TO") or p.accept("AS")
                    new_key = self._key(p.qualified(), key[0])
                    changed = True
            elif w == "ALTER":
                p.next()
                p.accept("COLUMN")
                name = p.ident()
                column = _find(table, name)
                if column is None:
                    p.skip_to_item_end()
                    continue
                if p.accept("SET", "DEFAULT"):
                    column.default_expression = p.literal_text()
                    column.has_default = column.default_expression is not None or column.optional
                    changed = True
                elif p.accept("DROP", "DEFAULT"):
                    column.default_expression = None
                    column.has_default = column.optional
                    changed = True
                else:
                    p.skip_to_item_end()
            elif w == "CONVERT":
                p.next()
                p.expect("TO")
                if not (p.accept("CHARACTER", "SET") or p.accept("CHARSET")):
                    raise DdlParseError("expected CHARACTER SET after CONVERT TO")
                charset = _charset(p.ident())
                if p.accept("COLLATE"):
                    p.ident()
                if charset == "default":
                    charset = self._table_charset(key[0]) or charset
                table.default_charset = charset
                for column in table.columns:
                    if column.data_type in _TEXT_TYPES:
                        column.charset = charset
                changed = True
            elif w in ("DEFAULT", "CHARACTER", "CHARSET", "COLLATE"):
                new_charset, _, _ = self._table_options_one(p)
                if new_charset:
                    table.default_charset = new_charset
                    changed = True
            elif w == "COMMENT":
                p.next()
                p.accept_p("=")
                table.comment = p.next()[1]
                changed = True
            else:
                # ENGINE=, ALGORITHM=, LOCK=, FORCE, ORDER BY, partitioning, KEYS ...
                p.skip_to_item_end()
                if p.punct() == ")":
                    p.next()
        if table is None:
            return []
        for pos, column in enumerate(table.columns, 1):
            column.position = pos
        if new_key != key:
            del self.tables[key]
            table.db, table.name = new_key
            if not self.captured(*new_key):
                return [TableChange("DROP", key, None, sql)]
            self.tables[new_key] = table
            return [TableChange("ALTER", new_key, key, sql)]
        self.tables[key] = table
        # Debezium reports every ALTER TABLE of a known table, even one changing no column.
        del changed
        return [TableChange("ALTER", key, None, sql)]

    def _table_options_one(self, p: _Parser) -> tuple[str | None, str | None, str | None]:
        p.accept("DEFAULT")
        charset = collation = None
        if p.accept("CHARACTER", "SET") or p.accept("CHARSET"):
            p.accept_p("=")
            charset = _charset(p.ident())
        if p.accept("COLLATE"):
            p.accept_p("=")
            collation = p.ident().lower()
            if charset is None:
                charset = charset_of_collation(collation, None)
        return charset, collation, None

    def _alter_add(self, p: _Parser, table: Table) -> bool:
        if self._add_key(p, table):
            return True
        p.accept("COLUMN")
        if_not_exists = p.accept("IF", "NOT", "EXISTS")
        if p.accept_p("("):
            # ADD [COLUMN] (col_def | key_def, ...)
            while True:
                if not self._add_key(p, table):
                    self._add_column(p, table, if_not_exists)
                if p.accept_p(","):
                    continue
                p.expect_p(")")
                return True
        self._add_column(p, table, if_not_exists)
        return True

    def _add_key(self, p: _Parser, table: Table) -> bool:
        """A key/constraint definition (True when one was read; only PRIMARY KEY matters)."""
        w = p.word()
        if w == "CONSTRAINT":
            p.next()
            if p.word() not in ("PRIMARY", "UNIQUE", "FOREIGN", "CHECK"):
                p.ident()
            w = p.word()
        if w == "PRIMARY":
            p.expect("PRIMARY", "KEY")
            self._skip_index_name_and_type(p)
            names = p.key_parts()
            p.skip_to_item_end()
            self._set_primary_key(table, names)
            return True
        if w in ("PERIOD", "SYSTEM") and p.word(1) not in ("FOR", "VERSIONING"):
            return False  # a column named period or system
        if w in _KEY_WORDS:
            p.skip_to_item_end()
            return True
        return False

    def _add_column(self, p: _Parser, table: Table, if_not_exists: bool) -> None:
        spec = self._column_def(p, table.db, None)
        column = spec.column
        if _find(table, column.name) is not None:
            if if_not_exists:
                return
            raise DdlParseError(f"column {column.name!r} already exists in {table.id}")
        if column.data_type in _TEXT_TYPES and column.charset is None:
            column.charset = table.default_charset
        index = len(table.columns)
        if p.accept("FIRST"):
            index = 0
        elif p.accept("AFTER"):
            after = _find(table, p.ident())
            if after is None:
                raise DdlParseError(f"AFTER an unknown column of {table.id}")
            index = table.columns.index(after) + 1
        table.columns.insert(index, column)
        if spec.primary:
            self._set_primary_key(table, [*table.primary_key, column.name])

    def _alter_drop(self, p: _Parser, table: Table) -> bool:
        if p.accept("PRIMARY", "KEY"):
            table.primary_key = []
            return True
        w = p.word()
        if w in ("INDEX", "KEY", "FOREIGN", "CHECK", "CONSTRAINT", "PARTITION") or (
            (w, p.word(1)) in (("PERIOD", "FOR"), ("SYSTEM", "VERSIONING"))
        ):
            p.skip_to_item_end()
            return False
        p.accept("COLUMN")
        if_exists = p.accept("IF", "EXISTS")
        name = p.ident()
        column = _find(table, name)
        p.accept("RESTRICT") or p.accept("CASCADE")
        if column is None:
            # The server refused it (or IF EXISTS): nothing changed. Debezium ignores it too.
            del if_exists
            return False
        table.columns.remove(column)
        table.primary_key = [n for n in table.primary_key if n != column.name]
        return True

    def _replace_column(self, table: Table, old: Column, spec: _ColumnSpec, p: _Parser) -> None:
        column = spec.column
        if column.data_type in _TEXT_TYPES and column.charset is None:
            column.charset = table.default_charset
        index = table.columns.index(old)
        table.columns.remove(old)
        if p.accept("FIRST"):
            index = 0
        elif p.accept("AFTER"):
            after = _find(table, p.ident())
            if after is None:
                raise DdlParseError(f"AFTER an unknown column of {table.id}")
            index = table.columns.index(after) + 1
        table.columns.insert(index, column)
        if old.name in table.primary_key:
            table.primary_key = [column.name if n == old.name else n for n in table.primary_key]
            column.optional = False
            column.has_default = column.default_expression is not None
        if spec.primary and column.name not in table.primary_key:
            self._set_primary_key(table, [*table.primary_key, column.name])

    # --- CREATE INDEX, DROP, RENAME ------------------------------------------------------------

    def _create_index(self, p: _Parser, db: str | None, sql: str) -> list[TableChange]:
        p.accept("UNIQUE") or p.accept("FULLTEXT") or p.accept("SPATIAL")
        p.expect("INDEX")
        p.accept("IF", "NOT", "EXISTS")
        p.ident()
        if p.accept("USING") or p.accept("TYPE"):
            p.ident()
        p.expect("ON")
        key = self._key(p.qualified(), db)
        if key in self.tables:
            return [TableChange("ALTER", key, None, sql)]
        return []

    def _drop_tables(self, p: _Parser, db: str | None, sql: str) -> list[TableChange]:
        p.accept("IF", "EXISTS")
        changes = []
        while True:
            key = self._key(p.qualified(), db)
            if self.tables.pop(key, None) is not None:
                changes.append(TableChange("DROP", key, None, sql))
            if not p.accept_p(","):
                break
        return changes

    def _rename_tables(self, p: _Parser, db: str | None, sql: str) -> list[TableChange]:
        changes = []
        while True:
            p.accept("IF", "EXISTS")
            old = self._key(p.qualified(), db)
            p.accept("WAIT") and p.next()
            p.accept("NOWAIT")
            p.expect("TO")
            new = self._key(p.qualified(), db)
            table = self.tables.pop(old, None)
            if table is not None:
                table = copy.deepcopy(table)  # the old definition stays with its events
                table.db, table.name = new
                if self.captured(*new):
                    self.tables[new] = table
                    changes.append(TableChange("ALTER", new, old, sql))
                else:
                    changes.append(TableChange("DROP", old, None, sql))
            elif self.captured(*new):
                raise DdlParseError(
                    f"table {old[0]}.{old[1]}, which the connector does not capture, was renamed to "
                    f"{new[0]}.{new[1]}, which it captures; its definition is unknown"
                )
            if not p.accept_p(","):
                break
        return changes


_KEY_WORDS: Final = frozenset(
    {
        "UNIQUE",
        "INDEX",
        "KEY",
        "FULLTEXT",
        "SPATIAL",
        "FOREIGN",
        "CHECK",
        "PARTITION",
        "PERIOD",
        "SYSTEM",
    }
)


_ROUTINES: Final = frozenset({"PROCEDURE", "FUNCTION", "TRIGGER", "EVENT", "PACKAGE"})


def _is_routine(tokens: list[Token]) -> bool:
    """CREATE/ALTER [DEFINER=...] PROCEDURE|FUNCTION|TRIGGER|EVENT ... (before any '(')."""
    if not tokens or tokens[0][0] != "w" or tokens[0][1].upper() not in ("CREATE", "ALTER"):
        return False
    for kind, text in tokens[1:12]:
        if kind == "p" and text in "(;":
            return False
        if kind == "w" and text.upper() in _ROUTINES:
            return True
        if kind == "w" and text.upper() in ("TABLE", "DATABASE", "SCHEMA", "INDEX", "VIEW"):
            return False
    return False


def _find(table: Table, name: str) -> Column | None:
    lowered = name.lower()
    for column in table.columns:
        if column.name.lower() == lowered:
            return column
    return None
