"""Comparing the two sides' results, and explaining a difference so a person can act on it.

Results agree when both sides failed (the messages are each language's own; a kconnect
failure must still be a ``ConnectError``, as the SDK's contract says), or when both
produced the same thing: the same bytes, the same schemas, the same values with the same
Java types. Where kconnect's value carries no Java type (a schemaless Python ``int`` or
``float``) any Java integer (or floating-point) type of the same value matches. Maps are
first compared as sets of entries; entries that only come in another order are reported as
their own kind, ``map-order``.
"""

from __future__ import annotations

import base64
import decimal
import json
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

from .cases import Case
from .wire import float_of_bits

__all__ = ["Difference", "compare", "jdk_double_text", "jdk_float_text", "same_numbers"]

_INT_TAGS = frozenset({"i8", "i16", "i32", "i64"})
_FLOAT_TAGS = frozenset({"f32", "f64"})
_SCALAR_TAGS = _INT_TAGS | _FLOAT_TAGS | {"int", "float", "bytes", "ts", "py", "java"}


@dataclass
class Difference:
    """One case on which kconnect and Kafka disagree."""

    case: Case
    kind: str  # outcome | error-class | bytes | float-digits | value | map-order
    where: str
    java: Any
    python: Any
    java_result: dict[str, Any]
    python_result: dict[str, Any]

    def summary(self) -> str:
        """One line: what differs, where, and both sides' versions (matched by the
        intended-differences list)."""
        return (
            f"{self.kind} at {self.where or '(result)'}: "
            f"java={_show(self.java)} kconnect={_show(self.python)}"
        )

    def render(self) -> str:
        """The difference with its case, for the test report."""
        return f"[{self.case.component} #{self.case.ident}] {self.summary()}\n    case: {self.case.describe()}"


def _show(thing: Any, limit: int = 300) -> str:
    text = json.dumps(thing, ensure_ascii=False) if not isinstance(thing, str) else thing
    text = _readable(thing) if isinstance(thing, dict) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _readable(node: dict[str, Any]) -> str:
    """A tagged value, with a float's bits and bytes' base64 shown as what they mean."""
    if len(node) == 1:
        ((tag, raw),) = node.items()
        if tag in ("f32", "f64", "float") and isinstance(raw, str):
            return f"{tag}({float_of_bits(raw)!r})"
        if tag == "bytes" and isinstance(raw, str):
            return f"bytes({base64.b64decode(raw)!r})"
    return json.dumps(node, ensure_ascii=False)


def _error_of(result: dict[str, Any]) -> dict[str, Any] | None:
    error = result.get("error")
    return error if isinstance(error, dict) else None


def compare(case: Case, java: dict[str, Any], python: dict[str, Any]) -> Difference | None:
    """The difference between the two results of ``case``, or None when they agree."""
    java_error, python_error = _error_of(java), _error_of(python)
    if java_error is not None and java_error.get("stage") == "harness":
        raise AssertionError(f"the Java harness could not run case {case.describe()}: {java_error}")
    if java_error is not None or python_error is not None:
        if java_error is None or python_error is None:
            return Difference(
                case,
                "outcome",
                "",
                _outcome(java_error),
                _outcome(python_error),
                java,
                python,
            )
        if not python_error.get("connect", True):
            return Difference(
                case,
                "error-class",
                python_error["stage"],
                f"{java_error['class']}",
                f"{python_error['class']}: {python_error['message']}",
                java,
                python,
            )
        return None
    left, right, loose = java, python, False
    if (
        isinstance(java.get("bytes"), str)
        and isinstance(python.get("bytes"), str)
        and java["bytes"] != python["bytes"]
        and _same_numbers_in_bytes(
            base64.b64decode(java["bytes"]), base64.b64decode(python["bytes"])
        )
    ):
        # Only the digits of some numbers differ (and so, where they are read back as
        # doubles, their values): anything else that differs is the difference to report.
        left = {k: v for k, v in java.items() if k != "bytes"}
        right = {k: v for k, v in python.items() if k != "bytes"}
        loose = True
    found = _first_difference(left, right, "", ordered=False, loose=loose)
    if found is not None:
        where, j, p = found
        kind = "bytes" if where.endswith("bytes") else "value"
        if kind == "bytes":
            j, p = _bytes_view(j, p)
        return Difference(case, kind, where, j, p, java, python)
    found = _first_difference(left, right, "", ordered=True, loose=loose)
    if found is not None:
        where, j, p = found
        return Difference(case, "map-order", where, j, p, java, python)
    if loose:
        j, p = _bytes_view(java["bytes"], python["bytes"])
        return Difference(case, "float-digits", "bytes", j, p, java, python)
    return None


_NUMBER = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def same_numbers(java: bytes, python: bytes) -> bool:
    """Whether two texts differ only where Java writes more digits than a number needs.

    JDK 17's ``Double.toString`` and ``Float.toString`` sometimes write more digits than
    the value needs (``9.999999999999999E22`` for 1e23, ``6.2634002E15`` for a float whose
    shortest form is ``6.2634E15``); since JDK 19 (JDK-4511638) they write the shortest,
    which is what kconnect writes. A pair of numbers counts as the same when kconnect's
    text is exactly what JDK 19+ writes for a double or a float, and Java's reads back as
    that same double or float.
    """
    if _NUMBER.sub(b"0", java) != _NUMBER.sub(b"0", python):
        return False
    for j, p in zip(_NUMBER.findall(java), _NUMBER.findall(python), strict=True):
        if j == p:
            continue
        jf, pf = float(j), float(p)
        text = p.decode()
        if jf == pf and text == jdk_double_text(pf):
            continue
        if _as_float32(jf) == _as_float32(pf) and text == jdk_float_text(pf):
            continue
        return False
    return True


def _same_numbers_in_bytes(java: bytes, python: bytes) -> bool:
    """:func:`same_numbers` on two outputs, as UTF-8 or (a StringConverter's) UTF-16 text."""
    if same_numbers(java, python):
        return True
    if b"\x00" not in java:
        return False
    for encoding in ("utf-16", "utf-16-be", "utf-16-le"):
        try:
            if same_numbers(java.decode(encoding).encode(), python.decode(encoding).encode()):
                return True
        except UnicodeDecodeError:
            continue
    return False


def _as_float32(value: float) -> bytes:
    try:
        return struct.pack(">f", value)
    except OverflowError:
        return b"overflow"


def _java_notation(value: float, digits: str, exponent: int) -> str:
    """``0.<digits> * 10**exponent`` as Java's toString lays it out."""
    sign = "-" if value < 0 else ""
    if 1e-3 <= abs(value) < 1e7:
        point = exponent
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole, fraction = digits[:point].ljust(point, "0"), digits[point:]
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent - 1}"


def _digits(text: str) -> tuple[str, int]:
    """The significant digits of a positive decimal and its exponent (``0.d * 10**e``)."""
    _, digits, exp = decimal.Decimal(text).normalize().as_tuple()
    assert isinstance(exp, int)
    ds = "".join(map(str, digits))
    return ds, len(ds) + exp


def _shortest(value: float, reads_back: Any, candidates: Any) -> str:
    """JDK 19+'s digits for ``value``: the shortest decimal that reads back as it; when
    that is one digit, the closest decimal of at most two digits (``4.9E-324``)."""
    shortest = next(c for c in candidates if reads_back(c))
    digits, exponent = _digits(shortest)
    if len(digits) == 1:
        two = f"{decimal.Decimal(abs(value)):.1e}"
        if reads_back(two):
            digits, exponent = _digits(two)
    return _java_notation(value, digits, exponent)


def jdk_double_text(value: float) -> str:
    """``Double.toString(value)`` as JDK 19 and later write it."""
    if value == 0.0 or not math.isfinite(value):
        return _special(value)
    magnitude = abs(value)
    return _shortest(value, lambda t: float(t) == magnitude, [repr(magnitude)])


def jdk_float_text(value: float) -> str:
    """``Float.toString((float) value)`` as JDK 19 and later write it."""
    single = (
        struct.unpack(">f", _as_float32(value))[0] if _as_float32(value) != b"overflow" else value
    )
    if single == 0.0 or not math.isfinite(single):
        return _special(single)
    magnitude = abs(single)
    packed = _as_float32(magnitude)
    return _shortest(
        single,
        lambda t: _as_float32(float(t)) == packed,
        (f"{magnitude:.{p}e}" for p in range(9)),
    )


def _special(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return "Infinity" if value > 0 else "-Infinity"


def _outcome(error: dict[str, Any] | None) -> str:
    if error is None:
        return "ok"
    return f"{error['stage']} failed: {error['class'].rsplit('.', 1)[-1]}: {error['message'][:200]}"


_NUMBER_BYTES = frozenset(b"0123456789.eE+-")


def _parting(jb: bytes, pb: bytes) -> tuple[int, int]:
    """Where two texts part (an offset into each), past numbers that differ only in JDK
    17's extra float digits: a text with such a number and another difference (a date
    written otherwise) is reported at that other difference, which the list may explain."""
    i = j = 0
    while True:
        while i < len(jb) and j < len(pb) and jb[i] == pb[j]:
            i, j = i + 1, j + 1
        if i == len(jb) or j == len(pb):
            return i, j
        back = 0  # the texts agree before i and j: back up to the number both are in
        while back < min(i, j) and jb[i - back - 1] in _NUMBER_BYTES:
            back += 1
        found_j = found_p = None
        for start in range(back, -1, -1):
            found_j = _NUMBER.match(jb, i - start)
            found_p = _NUMBER.match(pb, j - start)
            if found_j and found_p:
                break
        if not (found_j and found_p and found_j.end() >= i and found_p.end() >= j):
            return i, j
        if not same_numbers(found_j.group(), found_p.group()):
            return i, j
        i, j = found_j.end(), found_p.end()


def _bytes_view(java: Any, python: Any) -> tuple[str, str]:
    """Both byte strings as text, from where they part (past JDK 17's float digits)."""
    jb = base64.b64decode(java) if isinstance(java, str) else None
    pb = base64.b64decode(python) if isinstance(python, str) else None
    if jb is None or pb is None:
        return repr(jb), repr(pb)
    at_j, at_p = _parting(jb, pb)
    if at_j == len(jb) and at_p == len(pb):  # only float digits differ
        at_j = at_p = next(
            (i for i, (a, b) in enumerate(zip(jb, pb, strict=False)) if a != b),
            min(len(jb), len(pb)),
        )
    start_j, start_p = max(0, at_j - 40), max(0, at_p - 40)
    at = f"@{at_j}" if at_j == at_p else f"@{at_j}/{at_p}"
    return (
        f"{at}: {'...' if start_j else ''}{jb[start_j : at_j + 80]!r}",
        f"{at}: {'...' if start_p else ''}{pb[start_p : at_p + 80]!r}",
    )


def _tag(node: Any) -> tuple[str, Any] | None:
    if isinstance(node, dict) and len(node) == 1:
        ((tag, raw),) = node.items()
        return tag, raw
    return None


def _canonical(node: Any) -> str:
    """A sort key for a map entry that treats Python's untyped ints/floats as Java's."""

    def strip(n: Any) -> Any:
        tagged = _tag(n)
        if tagged is not None:
            tag, raw = tagged
            if tag in _INT_TAGS:
                return {"int": raw}
            if tag in _FLOAT_TAGS:
                return {"float": raw}
        if isinstance(n, dict):
            return {k: strip(v) for k, v in n.items()}
        if isinstance(n, list):
            return [strip(v) for v in n]
        return n

    return json.dumps(strip(node), sort_keys=True)


def _decimal_difference(java: Any, python: Any, path: str) -> tuple[str, Any, Any] | None:
    """Decimals differ in value, or only in scale (the same number, other trailing zeros)."""
    if java == python:
        return None
    jd = decimal.Decimal(f"{java['dec']}E{-java['scale']}")
    pd = decimal.Decimal(f"{python['dec']}E{-python['scale']}")
    where = f"{path} decimal scale" if jd == pd else f"{path} decimal"
    return where, f"{jd} (scale {java['scale']})", f"{pd} (scale {python['scale']})"


def _loosely(loose: bool, tag: str, java: Any, python: Any) -> bool:
    """Whether two numbers are the same float32 (``loose``: read back from texts that
    differ only in JDK 17's extra float digits, as floats or, when integral, as ints)."""
    if not loose:
        return False
    if tag == "int":
        return (
            isinstance(java, int)
            and isinstance(python, int)
            and _as_float32(java) == _as_float32(python)
        )
    return _as_float32(float_of_bits(java)) == _as_float32(float_of_bits(python))


def _map_difference(
    java: list[Any], python: list[Any], path: str, *, loose: bool = False
) -> tuple[str, Any, Any] | None:
    """The first difference between two maps' entries, whatever their order.

    Entries pair up by key; a key only one side has is reported against the other side's
    unpaired key (a NaN read back as 0.0 shows as that key).
    """
    by_key = {_canonical(k): (k, v) for k, v in python}
    unpaired: list[tuple[Any, Any]] = []
    for k, v in sorted(java, key=lambda e: _canonical(e[0])):
        found = by_key.pop(_canonical(k), None)
        if found is None:
            unpaired.append((k, v))
            continue
        difference = _first_difference(
            v, found[1], f"{path}[{_canonical(k)}]", ordered=False, loose=loose
        )
        if difference is not None:
            return difference
    if loose:
        # Keys read back from JDK 17's extra float digits pair up as the same float32.
        unpaired_java = []
        for k, v in unpaired:
            twin = next(
                (
                    key
                    for key, (pk, _) in by_key.items()
                    if _first_difference(k, pk, "", ordered=False, loose=True) is None
                ),
                None,
            )
            if twin is None:
                unpaired_java.append(k)
                continue
            difference = _first_difference(
                v, by_key.pop(twin)[1], f"{path}[{_canonical(k)}]", ordered=False, loose=loose
            )
            if difference is not None:
                return difference
    else:
        unpaired_java = [k for k, _ in unpaired]
    unpaired_python = [k for k, _ in by_key.values()]
    if unpaired_java or unpaired_python:
        if len(unpaired_java) == 1 and len(unpaired_python) == 1:
            return _first_difference(
                unpaired_java[0], unpaired_python[0], f"{path} key", ordered=False, loose=loose
            ) or (
                f"{path} key",
                unpaired_java[0],
                unpaired_python[0],
            )
        # Several keys differ (struct keys holding NaN or an infinity Kafka reads as 0.0):
        # keys alike but for their floats pair up, and the first such pair's difference
        # is the one reported, as it is for a single key.
        java_masks = [_float_masked(k) for k in unpaired_java]
        python_masks = [_float_masked(k) for k in unpaired_python]
        for k, mask in zip(unpaired_java, java_masks, strict=True):
            if java_masks.count(mask) == 1 and python_masks.count(mask) == 1:
                twin = unpaired_python[python_masks.index(mask)]
                drilled = _first_difference(k, twin, f"{path} key", ordered=False, loose=loose)
                if drilled is not None:
                    return drilled
        return f"{path} keys", unpaired_java, unpaired_python
    return None


def _float_masked(node: Any) -> str:
    """:func:`_canonical` of a value with every floating-point number left out."""

    def mask(n: Any) -> Any:
        tagged = _tag(n)
        if tagged is not None and tagged[0] in _FLOAT_TAGS | {"float"}:
            return {"float": "?"}
        if isinstance(n, dict):
            return {k: mask(v) for k, v in n.items()}
        if isinstance(n, list):
            return [mask(v) for v in n]
        return n

    return _canonical(mask(node))


def _first_difference(
    java: Any, python: Any, path: str, *, ordered: bool, loose: bool = False
) -> tuple[str, Any, Any] | None:
    """The path and both sides of the first difference, or None.

    ``ordered``: map entries must also come in the same order. ``loose``: floats match
    when they are the same float32 (values read back from texts that differ only in
    JDK 17's extra float digits).
    """
    jt, pt = _tag(java), _tag(python)
    if jt is not None and pt is not None:
        (jtag, jraw), (ptag, praw) = jt, pt
        integers = _INT_TAGS | {"int"}
        floats = _FLOAT_TAGS | {"float"}
        if (jtag in integers and ptag in integers) or (jtag in floats and ptag in floats):
            # A Python int or float has no Java width: the schema (compared on its own)
            # says which it is. Where Java's value has another class than its schema says
            # (Values keeps a Byte in an INT16 map), the number is what counts.
            if jraw == praw or _loosely(loose, "float" if jtag in floats else "int", jraw, praw):
                return None
            return path, java, python
        if jtag in _SCALAR_TAGS or ptag in _SCALAR_TAGS:
            # A tagged scalar is one thing: reported whole, so a float shows as a number.
            return None if java == python else (path, java, python)
    if isinstance(java, dict) and isinstance(python, dict):
        if set(java) != set(python):
            only_java = ", ".join(sorted(set(java) - set(python)))
            only_python = ", ".join(sorted(set(python) - set(java)))
            return f"{path} [only java: {only_java}; only kconnect: {only_python}]", java, python
        if "dec" in java and java.keys() == {"dec", "scale"}:
            return _decimal_difference(java, python, path)
        if (
            "map" in java
            and not ordered
            and isinstance(java["map"], list)
            and isinstance(python["map"], list)
        ):
            return _map_difference(java["map"], python["map"], f"{path}.map", loose=loose)
        for key in java:
            found = _first_difference(
                java[key],
                python[key],
                f"{path}.{key}" if path else key,
                ordered=ordered,
                loose=loose,
            )
            if found is not None:
                return found
        return None
    if isinstance(java, list) and isinstance(python, list):
        if len(java) != len(python):
            return path, java, python
        for i, (j, p) in enumerate(zip(java, python, strict=True)):
            found = _first_difference(j, p, f"{path}[{i}]", ordered=ordered, loose=loose)
            if found is not None:
                return found
        return None
    if type(java) is not type(python) or java != python:
        # Text read back from bytes that differ only in JDK 17's float digits.
        if (
            loose
            and isinstance(java, str)
            and isinstance(python, str)
            and same_numbers(java.encode(), python.encode())
        ):
            return None
        return path, java, python
    return None
