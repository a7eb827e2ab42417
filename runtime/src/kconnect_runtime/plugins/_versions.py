"""KIP-891 version requirements: exact versions, Maven ranges, PEP 440 specifiers, ``latest``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kconnect_sdk import (
    ConfigError,
)
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

__all__ = ["VersionRequirement", "version_key"]


def version_key(key: str | None) -> str | None:
    """The KIP-891 version config that goes with a plugin class config.

    ``connector.class`` -> ``connector.plugin.version``, ``transforms.a.type`` ->
    ``transforms.a.plugin.version``, ``key.converter`` -> ``key.converter.plugin.version``.
    """
    if key is None:
        return None
    for suffix in (".class", ".type"):
        if key.endswith(suffix):
            return key[: -len(suffix)] + ".plugin.version"
    return key + ".plugin.version"


_RANGE_SET = re.compile(r"\s*([\[(])([^\[\]()]*)([\])])\s*(?:,|$)")
_SPECIFIER_OPERATORS = ("<", ">", "=", "!", "~")


def _as_version(text: str) -> Version | None:
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


@dataclass(frozen=True, slots=True)
class _Interval:
    lower: Version | None
    lower_inclusive: bool
    upper: Version | None
    upper_inclusive: bool

    def contains(self, version: Version) -> bool:
        if self.lower is not None and (
            version < self.lower or (version == self.lower and not self.lower_inclusive)
        ):
            return False
        return self.upper is None or not (
            version > self.upper or (version == self.upper and not self.upper_inclusive)
        )


class VersionRequirement:
    """Which versions a ``*.plugin.version`` config accepts.

    ``parse`` takes what Kafka's ``PluginUtils.connectorVersionRequirement`` takes (an exact
    version, which Kafka treats as the hard range ``[v]``, or Maven ranges) and PEP 440
    specifiers; ``None``, empty and ``latest`` mean no requirement (the newest).
    """

    def __init__(
        self,
        text: str,
        *,
        exact: str | None = None,
        intervals: Sequence[_Interval] = (),
        specifier: SpecifierSet | None = None,
    ) -> None:
        self.text = text
        self._exact = exact
        self._intervals = tuple(intervals)
        self._specifier = specifier

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"VersionRequirement({self.text!r})"

    @classmethod
    def parse(cls, spec: str | None, *, key: str | None = None) -> VersionRequirement | None:
        """The requirement ``spec`` states, or None for the newest.

        Raises:
            ConfigError: ``spec`` is neither a version, a Maven range nor a PEP 440
                specifier (named after ``key``).
        """
        text = (spec or "").strip()
        if not text or text.lower() == "latest":
            return None
        if text[0] in "[(":
            return cls(text, intervals=cls._maven_ranges(text, key))
        if text.startswith(_SPECIFIER_OPERATORS):
            try:
                return cls(text, specifier=SpecifierSet(text))
            except InvalidSpecifier:
                raise _bad_version(text, key, "not a valid PEP 440 version specifier") from None
        if "," in text or any(c.isspace() for c in text):
            raise _bad_version(text, key, "not a version, a version range or a specifier")
        return cls(text, exact=text)

    @classmethod
    def _maven_ranges(cls, text: str, key: str | None) -> list[_Interval]:
        intervals: list[_Interval] = []
        position = 0
        while position < len(text):
            match = _RANGE_SET.match(text, position)
            if match is None:
                raise _bad_version(text, key, "not a valid version range")
            opening, body, closing = match.groups()
            bounds = [b.strip() for b in body.split(",")]
            if len(bounds) == 1:
                # [1.0] is exactly 1.0; (1.0) is meaningless, as in Maven.
                version = _as_version(bounds[0])
                if opening != "[" or closing != "]" or version is None:
                    raise _bad_version(text, key, "a single version in a range must be [x]")
                intervals.append(_Interval(version, True, version, True))
            elif len(bounds) == 2:
                low = _as_version(bounds[0]) if bounds[0] else None
                high = _as_version(bounds[1]) if bounds[1] else None
                if (bounds[0] and low is None) or (bounds[1] and high is None):
                    raise _bad_version(text, key, "a bound is not a version")
                if low is not None and high is not None and low > high:
                    raise _bad_version(text, key, "the lower bound is above the upper bound")
                if (low is None and opening == "[") or (high is None and closing == "]"):
                    raise _bad_version(text, key, "an unbounded side must use ( or )")
                intervals.append(_Interval(low, opening == "[", high, closing == "]"))
            else:
                raise _bad_version(text, key, "a range has at most two bounds")
            position = match.end()
        return intervals

    def contains(self, version: str) -> bool:
        """Whether the installed ``version`` satisfies this requirement."""
        parsed = _as_version(version)
        if self._exact is not None:
            wanted = _as_version(self._exact)
            if parsed is not None and wanted is not None:
                return parsed == wanted  # 1.0 is 1.0.0, as in Maven and PEP 440
            return version.strip() == self._exact
        if parsed is None:
            return False
        if self._specifier is not None:
            return self._specifier.contains(parsed, prereleases=True)
        return any(interval.contains(parsed) for interval in self._intervals)


def _bad_version(text: str, key: str | None, why: str) -> ConfigError:
    return ConfigError(
        f"Invalid value {text} for configuration {key or 'plugin.version'}: {why}; use an exact "
        "version (1.2.0), a range ([1.0,2.0)), a PEP 440 specifier (>=1,<2) or latest",
        name=key,
        value=text,
    )
