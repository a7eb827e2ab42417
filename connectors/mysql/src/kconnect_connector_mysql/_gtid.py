"""GTID sets as Debezium keeps them in offsets, and the set a restart connects with.

Two notations share the offset's ``gtids`` key:

* MySQL: ``uuid:1-5:7,uuid2:1-3`` — per source server (uuid), the intervals of
  transaction numbers executed.
* MariaDB: ``domain-server-sequence,...`` — per replication stream (domain and server
  id), the last transaction seen. A binlog connection takes one position per domain
  (``@slave_connect_state``), the highest sequence of that domain.

``restart_set`` follows Debezium's ``filterGtidSet``: the offset's set (narrowed by
``gtid.source.includes``/``excludes``) wins for every source it names; the server's purged
set is added for the sources the offset does not name; sources the server knows but the
offset never saw are read from their first available transaction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "MariaDbGtidSet",
    "MySqlGtidSet",
    "is_mariadb_gtid_text",
    "mariadb_purged_before",
    "restart_set",
]

SourceFilter = Callable[[str], bool]

_MARIADB_GTID = re.compile(r"^\s*(\d+)-(\d+)-(\d+)\s*$")


def is_mariadb_gtid_text(text: str) -> bool:
    """True when ``text`` is a MariaDB GTID list (``0-1-5,1-2-3``), not a MySQL GTID set."""
    parts = [p for p in text.replace("\n", "").split(",") if p.strip()]
    return bool(parts) and all(_MARIADB_GTID.match(p) for p in parts)


@dataclass
class MariaDbGtidSet:
    """The last sequence seen per MariaDB replication stream ``(domain, server)``."""

    streams: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> MariaDbGtidSet:
        out = cls()
        for part in (text or "").replace("\n", "").split(","):
            if not part.strip():
                continue
            match = _MARIADB_GTID.match(part)
            if match is None:
                raise ValueError(f"{part.strip()!r} is not a MariaDB GTID (domain-server-sequence)")
            out.add_parts(int(match[1]), int(match[2]), int(match[3]))
        return out

    def add_parts(self, domain: int, server: int, sequence: int) -> None:
        key = (domain, server)
        if self.streams.get(key, -1) < sequence:
            self.streams[key] = sequence

    def add(self, gtid: str) -> None:
        """Record ``domain-server-sequence`` as the stream's latest transaction."""
        match = _MARIADB_GTID.match(gtid)
        if match is None:
            raise ValueError(f"{gtid!r} is not a MariaDB GTID (domain-server-sequence)")
        key = (int(match[1]), int(match[2]))
        # The stream's position moves to the transaction just completed.
        self.streams[key] = int(match[3])

    def retain(self, keep: SourceFilter) -> MariaDbGtidSet:
        """The streams whose ``domain-server`` id passes ``keep``."""
        return MariaDbGtidSet({k: v for k, v in self.streams.items() if keep(f"{k[0]}-{k[1]}")})

    def with_(self, other: MariaDbGtidSet) -> MariaDbGtidSet:
        """This set with every stream of ``other`` replacing this set's entry for it."""
        return MariaDbGtidSet({**self.streams, **other.streams})

    def names(self, key: tuple[int, int]) -> bool:
        return key in self.streams

    def connect_state(self) -> str:
        """``@slave_connect_state``: per domain, the GTID with the highest sequence."""
        best: dict[int, tuple[int, int]] = {}
        for (domain, server), seq in self.streams.items():
            if domain not in best or best[domain][1] < seq:
                best[domain] = (server, seq)
        return ",".join(f"{d}-{s}-{q}" for d, (s, q) in sorted(best.items()))

    def __str__(self) -> str:
        return ",".join(f"{d}-{s}-{q}" for (d, s), q in sorted(self.streams.items()))

    def __bool__(self) -> bool:
        return bool(self.streams)


@dataclass
class MySqlGtidSet:
    """Intervals of transaction numbers per MySQL source uuid."""

    sources: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> MySqlGtidSet:
        out = cls()
        for raw in (text or "").replace("\n", "").replace("\r", "").split(","):
            part = raw.strip()
            if not part:
                continue
            uuid, *ranges = part.split(":")
            if not ranges or not uuid:
                raise ValueError(f"{part!r} is not a MySQL GTID set entry (uuid:first-last)")
            spans = out.sources.setdefault(uuid.lower(), [])
            for text_range in ranges:
                low, _, high = text_range.partition("-")
                try:
                    first, last = int(low), int(high or low)
                except ValueError:
                    raise ValueError(
                        f"{part!r} is not a MySQL GTID set entry (uuid:first-last)"
                    ) from None
                if first < 1 or last < first:
                    raise ValueError(f"{part!r} has an empty or negative interval {text_range!r}")
                spans.append((first, last))
            out.sources[uuid.lower()] = _merge(spans)
        return out

    def add(self, gtid: str) -> None:
        """Add the transaction ``uuid:n``."""
        uuid, _, number = gtid.strip().partition(":")
        try:
            n = int(number)
        except ValueError:
            raise ValueError(f"{gtid!r} is not a MySQL GTID (uuid:number)") from None
        key = uuid.lower()
        self.sources[key] = _merge([*self.sources.get(key, []), (n, n)])

    def contains(self, gtid: str) -> bool:
        uuid, _, number = gtid.strip().partition(":")
        n = int(number)
        return any(a <= n <= b for a, b in self.sources.get(uuid.lower(), []))

    def is_contained_within(self, other: MySqlGtidSet) -> bool:
        """Every transaction of this set is in ``other``."""
        for uuid, spans in self.sources.items():
            theirs = other.sources.get(uuid, [])
            for a, b in spans:
                if not any(x <= a and b <= y for x, y in theirs):
                    return False
        return True

    def retain(self, keep: SourceFilter) -> MySqlGtidSet:
        return MySqlGtidSet({k: list(v) for k, v in self.sources.items() if keep(k)})

    def with_(self, other: MySqlGtidSet) -> MySqlGtidSet:
        return MySqlGtidSet({**self.sources, **other.sources})

    def names(self, key: str) -> bool:
        return key in self.sources

    def __str__(self) -> str:
        return ",".join(
            uuid + ":" + ":".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)
            for uuid, spans in sorted(self.sources.items())
        )

    def __bool__(self) -> bool:
        return bool(self.sources)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def restart_set(
    offset_gtids: str,
    available: str | None,
    purged: str | None,
    keep: SourceFilter | None,
) -> MySqlGtidSet | MariaDbGtidSet:
    """The GTID set to connect with after a restart (Debezium's ``filterGtidSet``)."""
    if is_mariadb_gtid_text(offset_gtids):
        maria = MariaDbGtidSet.parse(offset_gtids)
        if keep is not None:
            maria = maria.retain(keep)
        server = MariaDbGtidSet.parse(available)
        if keep is not None:
            server = server.retain(keep)
        known = maria
        server = MariaDbGtidSet({k: v for k, v in server.streams.items() if known.names(k)})
        return server.with_(MariaDbGtidSet.parse(purged)).with_(maria)
    mine = MySqlGtidSet.parse(offset_gtids)
    if keep is not None:
        mine = mine.retain(keep)
    server_set = MySqlGtidSet.parse(available)
    if keep is not None:
        server_set = server_set.retain(keep)
    server_set = MySqlGtidSet({k: v for k, v in server_set.sources.items() if mine.names(k)})
    return server_set.with_(MySqlGtidSet.parse(purged)).with_(mine)


def mariadb_purged_before(offset: MariaDbGtidSet, oldest_binlog_state: str | None) -> list[str]:
    """The domains whose transactions after the offset are no longer in any binlog.

    ``oldest_binlog_state`` is the GTID state at the start of the oldest binlog file
    (``BINLOG_GTID_POS(<oldest file>, 4)``): every transaction of a domain up to that
    sequence was written to files that are gone. The offset needs, for each such domain,
    a position at or after it.
    """
    lost: list[str] = []
    start = MariaDbGtidSet.parse(oldest_binlog_state)
    have: dict[int, int] = {}
    for (domain, _server), seq in offset.streams.items():
        have[domain] = max(have.get(domain, -1), seq)
    for (domain, _server), seq in sorted(start.streams.items()):
        if domain in have and have[domain] < seq:
            lost.append(
                f"domain {domain} (offset at {have[domain]}, oldest binlog starts after {seq})"
            )
    return lost
