"""Configuration definitions: typed keys with defaults, importance, docs and validation.

Semantics follow Kafka's ``ConfigDef``: ``parse`` turns raw string properties into typed
values and raises on the first bad key; ``validate`` never raises and reports every key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Protocol

from ._errors import ConfigError

__all__ = [
    "NO_DEFAULT",
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "ConfigDef",
    "ConfigKey",
    "ConfigType",
    "ConfigValue",
    "Importance",
    "LambdaValidator",
    "ListSize",
    "NonEmptyStringWithoutControlChars",
    "ParsedConfig",
    "Password",
    "Range",
    "Recommender",
    "ValidList",
    "ValidString",
    "Validator",
    "Width",
    "lambda_validator",
    "non_empty_string",
]


class ConfigType(StrEnum):
    """Value types of config keys, named as Kafka's ``ConfigDef.Type``."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(StrEnum):
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Width(StrEnum):
    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


class _NoDefault:
    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __bool__(self) -> bool:
        return False


NO_DEFAULT: Final = _NoDefault()
"""Marks a key as required: it has no default value."""


class Password:
    """A secret config value. Its ``str``/``repr`` never show it: use :attr:`value`."""

    __slots__ = ("value",)
    HIDDEN: Final = "[hidden]"

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return self.HIDDEN

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


class Validator(Protocol):
    """Checks a parsed value; raises :class:`ConfigError` when it is not acceptable."""

    def __call__(self, name: str, value: Any) -> None: ...


class Recommender(Protocol):
    """Suggests values for a key and says whether it is visible, given the other values."""

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]: ...

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool: ...


def _invalid(name: str, value: Any, reason: str) -> ConfigError:
    shown = Password.HIDDEN if isinstance(value, Password) else value
    # Java's string concatenation writes a null as "null".
    text = "null" if shown is None else shown
    return ConfigError(
        f"Invalid value {text} for configuration {name}: {reason}", name=name, value=shown
    )


@dataclass(frozen=True, slots=True)
class Range:
    """Numeric bounds (inclusive); either end may be open."""

    min: float | None = None
    max: float | None = None

    @classmethod
    def at_least(cls, minimum: float) -> Range:
        return cls(minimum, None)

    @classmethod
    def between(cls, minimum: float, maximum: float) -> Range:
        return cls(minimum, maximum)

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            raise _invalid(name, value, "Value must be non-null")
        if self.min is not None and value < self.min:
            raise _invalid(name, value, f"Value must be at least {_num(self.min)}")
        if self.max is not None and value > self.max:
            raise _invalid(name, value, f"Value must be no more than {_num(self.max)}")

    def __str__(self) -> str:
        if self.max is None:
            return f"[{_num(self.min)},...]"
        if self.min is None:
            return f"[...,{_num(self.max)}]"
        return f"[{_num(self.min)},...,{_num(self.max)}]"


def _num(x: float | None) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


@dataclass(frozen=True, slots=True)
class ValidString:
    """The value must be one of ``allowed`` (case-insensitively when asked)."""

    allowed: tuple[str, ...]
    case_insensitive: bool = False

    @classmethod
    def one_of(cls, *allowed: str, case_insensitive: bool = False) -> ValidString:
        return cls(tuple(allowed), case_insensitive)

    def __call__(self, name: str, value: Any) -> None:
        if value is None and None in self.allowed:
            return
        candidates = (
            [a.lower() for a in self.allowed] if self.case_insensitive else list(self.allowed)
        )
        probe = value.lower() if self.case_insensitive and isinstance(value, str) else value
        if probe not in candidates:
            raise _invalid(name, value, f"String must be one of: {', '.join(self.allowed)}")

    def __str__(self) -> str:
        return "[" + ", ".join(self.allowed) + "]"


@dataclass(frozen=True, slots=True)
class ValidList:
    """Every element of a LIST value must be one of ``allowed``."""

    allowed: tuple[str, ...]

    @classmethod
    def one_of(cls, *allowed: str) -> ValidList:
        return cls(tuple(allowed))

    def __call__(self, name: str, value: Any) -> None:
        for item in value or ():
            if item not in self.allowed:
                raise _invalid(
                    name, value, f"Invalid value {item}; must be one of: {', '.join(self.allowed)}"
                )

    def __str__(self) -> str:
        return "[" + ", ".join(self.allowed) + "]"


def non_empty_string(name: str, value: Any) -> None:
    """Validator: the value is a non-empty string."""
    if not isinstance(value, str) or not value:
        raise _invalid(name, value, "String must be non-empty")


@dataclass(frozen=True, slots=True)
class CaseInsensitiveValidString:
    """The value must be one of ``allowed``, ignoring case (Kafka's ``CaseInsensitiveValidString``)."""

    allowed: tuple[str, ...]

    @classmethod
    def one_of(cls, *allowed: str) -> CaseInsensitiveValidString:
        return cls(tuple(allowed))

    def __call__(self, name: str, value: Any) -> None:
        folded = {a.upper() for a in self.allowed}
        if not isinstance(value, str) or value.upper() not in folded:
            raise _invalid(
                name, value, f"String must be one of (case insensitive): {', '.join(self.allowed)}"
            )

    def __str__(self) -> str:
        return "(case insensitive) [" + ", ".join(self.allowed) + "]"


class NonEmptyStringWithoutControlChars:
    """The value is None or a non-empty string without ISO control characters."""

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            return  # Kafka lets a null through: pair with a non-null check when required
        if not isinstance(value, str):
            raise _invalid(name, value, "Expected value to be a string")
        if not value:
            raise _invalid(name, value, "String may not be empty")
        control = [str(ord(c)) for c in value if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F]
        if control:
            raise _invalid(
                name,
                value,
                "String may not contain control sequences but had the following ASCII chars: "
                + ", ".join(control),
            )

    def __str__(self) -> str:
        return "non-empty string without ISO control characters"


class LambdaValidator:
    """A validator from a function and a description (Kafka's ``LambdaValidator.with``).

    ``check(name, value)`` raises :class:`ConfigError` (or returns None when the value is
    fine); ``description`` is what :meth:`ConfigDef.to_markdown` shows as valid values.
    """

    __slots__ = ("_check", "_description")

    def __init__(self, check: Callable[[str, Any], None], description: str) -> None:
        self._check = check
        self._description = description

    @classmethod
    def with_(cls, check: Callable[[str, Any], None], description: str) -> LambdaValidator:
        return cls(check, description)

    def __call__(self, name: str, value: Any) -> None:
        self._check(name, value)

    def __str__(self) -> str:
        return self._description


def lambda_validator(check: Callable[[str, Any], None], description: str) -> LambdaValidator:
    """Shorthand for ``LambdaValidator(check, description)``."""
    return LambdaValidator(check, description)


class CompositeValidator:
    """Runs validators in order; the first to raise decides (Kafka's ``CompositeValidator.of``)."""

    __slots__ = ("validators",)

    def __init__(self, validators: Sequence[Validator | Callable[[str, Any], None]]) -> None:
        self.validators = tuple(validators)

    @classmethod
    def of(cls, *validators: Validator | Callable[[str, Any], None]) -> CompositeValidator:
        return cls(validators)

    def __call__(self, name: str, value: Any) -> None:
        for validator in self.validators:
            validator(name, value)

    def __str__(self) -> str:
        return ", ".join(_describe_validator(v) for v in self.validators)


@dataclass(frozen=True, slots=True)
class ListSize:
    """A LIST value has at most ``max_size`` elements (Kafka's ``ListSize.atMostOfSize``)."""

    max_size: int

    @classmethod
    def at_most_of_size(cls, max_size: int) -> ListSize:
        return cls(max_size)

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            raise _invalid(name, value, "Value must be non-null")
        if len(value) > self.max_size:
            raise _invalid(name, value, f"exceeds maximum list size of [{self.max_size}].")

    def __str__(self) -> str:
        return f"List containing maximum of {self.max_size} elements"


def _parses(key: ConfigKey, value: Any) -> bool:
    try:
        parse_type(key.name, value, key.type)
    except ConfigError:
        return False
    return True


def _validate_null(key: ConfigKey, result: ConfigValue) -> None:
    if key.validator is None:
        return
    try:
        key.validator(key.name, None)
    except ConfigError as exc:
        result.add_error_message(str(exc))
    except Exception:  # a validator that cannot judge a null has nothing to add
        pass


def _describe_validator(validator: object) -> str:
    if validator is None:
        return ""
    if validator is non_empty_string:
        return "non-empty string"
    if type(validator).__str__ is object.__str__ or hasattr(validator, "__code__"):
        return ""  # a plain function's or object's repr says nothing about valid values
    return str(validator)


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """One key of a :class:`ConfigDef`."""

    name: str
    type: ConfigType
    default: Any
    validator: Validator | Callable[[str, Any], None] | None
    importance: Importance
    documentation: str
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str | None = None
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = None
    internal: bool = False

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@dataclass(slots=True)
class ConfigValue:
    """The outcome of validating one key: its value, recommendations and errors."""

    name: str
    value: Any = None
    recommended_values: list[Any] = field(default_factory=list)
    error_messages: list[str] = field(default_factory=list)
    visible: bool = True

    def add_error_message(self, message: str) -> None:
        self.error_messages.append(message)


class ParsedConfig(Mapping[str, Any]):
    """Typed values parsed by a :class:`ConfigDef`, plus the original properties.

    Reads like a dict (``cfg["batch.size"]``); ``originals`` keeps every property given,
    including keys the definition does not know (a converter's or a client's, say).
    """

    __slots__ = ("_values", "originals")

    def __init__(self, values: Mapping[str, Any], originals: Mapping[str, Any]) -> None:
        self._values = dict(values)
        self.originals: Mapping[str, Any] = dict(originals)

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def originals_with_prefix(self, prefix: str, *, strip: bool = True) -> dict[str, Any]:
        return {
            (k[len(prefix) :] if strip else k): v
            for k, v in self.originals.items()
            if k.startswith(prefix)
        }

    def __repr__(self) -> str:
        shown = {
            k: (Password.HIDDEN if isinstance(v, Password) else v) for k, v in self._values.items()
        }
        return f"ParsedConfig({shown!r})"


type_ = type  # `type` is shadowed by parameters below

_BOOL_STRINGS: Final = {"true": True, "false": False}
_INT_BOUNDS: Final = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1),
    ConfigType.INT: (-(2**31), 2**31 - 1),
    ConfigType.LONG: (-(2**63), 2**63 - 1),
}


def parse_type(name: str, value: Any, type: ConfigType) -> Any:
    """Convert a raw value (usually a string) to ``type``, as Kafka's ``ConfigDef.parseType``."""
    if value is None:
        return None
    if isinstance(value, str) and type is not ConfigType.PASSWORD:
        value = value.strip()
    try:
        if type is ConfigType.BOOLEAN:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in _BOOL_STRINGS:
                return _BOOL_STRINGS[value.lower()]
            raise _invalid(name, value, "Expected value to be either true or false")
        if type is ConfigType.PASSWORD:
            if isinstance(value, Password):
                return value
            if isinstance(value, str):
                return Password(value)
            raise _invalid(name, "[hidden]", "Expected value to be a string")
        if type in (ConfigType.STRING, ConfigType.CLASS):
            if isinstance(value, str):
                return value
            if type is ConfigType.CLASS and isinstance(value, type_):
                return value
            raise _invalid(name, value, "Expected value to be a string")
        if type in _INT_BOUNDS:
            if isinstance(value, bool):
                raise _invalid(name, value, f"Not a number of type {type.value}")
            if isinstance(value, str):
                try:
                    parsed = int(value)
                except ValueError:
                    raise _invalid(name, value, f"Not a number of type {type.value}") from None
            elif isinstance(value, int):
                parsed = value
            else:
                raise _invalid(name, value, f"Expected value to be a {type.value.lower()} integer")
            lo, hi = _INT_BOUNDS[type]
            if not lo <= parsed <= hi:
                raise _invalid(name, value, f"Not a number of type {type.value}")
            return parsed
        if type is ConfigType.DOUBLE:
            if isinstance(value, bool):
                raise _invalid(name, value, "Not a number of type DOUBLE")
            if isinstance(value, int | float):
                return float(value)
            try:
                return float(value)
            except (TypeError, ValueError):
                raise _invalid(name, value, "Not a number of type DOUBLE") from None
        if type is ConfigType.LIST:
            if isinstance(value, list | tuple):
                return [str(v).strip() if isinstance(v, str) else v for v in value]
            if isinstance(value, str):
                return [] if not value else [part.strip() for part in value.split(",")]
            raise _invalid(name, value, "Expected a comma separated list.")
    except ConfigError:
        raise
    raise _invalid(name, value, f"Unknown type {type}")


def convert_to_string(value: Any, type: ConfigType | None = None) -> str | None:
    """Render a parsed value back to its property string (``[hidden]`` for passwords)."""
    if value is None:
        return None
    if isinstance(value, Password):
        return Password.HIDDEN
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, type_):
        return f"{value.__module__}:{value.__qualname__}"
    return str(value)


def _markdown_default(key: ConfigKey) -> str:
    if not key.has_default:
        return ""
    if key.default is None:
        return "null"
    if key.type is ConfigType.PASSWORD:
        return Password.HIDDEN
    if key.type is ConfigType.STRING and key.default == "":
        return '""'
    return convert_to_string(key.default, key.type) or ""


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class ConfigDef:
    """A set of config keys, each with a type, default, importance, docs and validation.

    Besides its keys, a definition may accept whole families of keys by prefix
    (:meth:`accept_prefix`): settings the plugin passes on without defining each one.

    Example:
        >>> CONFIG = (ConfigDef()
        ...     .define("file", ConfigType.STRING, None, importance=Importance.HIGH,
        ...             documentation="Source filename. If not specified, stdin is used.")
        ...     .define("batch.size", ConfigType.INT, 2000, Range.at_least(1),
        ...             importance=Importance.LOW, documentation="Max lines per poll."))
    """

    def __init__(self, keys: Iterable[ConfigKey] = ()) -> None:
        self._keys: dict[str, ConfigKey] = {}
        self._prefixes: dict[str, str] = {}
        for key in keys:
            self.define_key(key)

    def define(
        self,
        name: str,
        type: ConfigType,
        default: Any = NO_DEFAULT,
        validator: Validator | Callable[[str, Any], None] | None = None,
        *,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        group: str | None = None,
        order_in_group: int = -1,
        width: Width = Width.NONE,
        display_name: str | None = None,
        dependents: Sequence[str] = (),
        recommender: Recommender | None = None,
        internal: bool = False,
    ) -> ConfigDef:
        """Add a key and return self, so definitions chain. Defaults are parsed and validated."""
        if default is not NO_DEFAULT and default is not None:
            default = parse_type(name, default, type)
            if validator is not None:
                validator(name, default)
        return self.define_key(
            ConfigKey(
                name=name,
                type=type,
                default=default,
                validator=validator,
                importance=importance,
                documentation=documentation,
                group=group,
                order_in_group=order_in_group,
                width=width,
                display_name=display_name or name,
                dependents=tuple(dependents),
                recommender=recommender,
                internal=internal,
            )
        )

    def define_key(self, key: ConfigKey) -> ConfigDef:
        if key.name in self._keys:
            raise ConfigError(f"Configuration {key.name} is defined twice.", name=key.name)
        self._keys[key.name] = key
        return self

    def accept_prefix(self, prefix: str, documentation: str = "") -> ConfigDef:
        """Accept every key that starts with ``prefix`` as the plugin's own; returns self.

        For a family of keys the plugin reads without defining them one by one, typically
        settings it passes on to a client or driver: MirrorMaker's ``source.cluster.*`` and
        ``target.producer.*``, a JDBC driver's ``connection.*`` properties. The runtime
        does not report such keys as unknown ("unknown connector key ...; it is ignored"),
        except one that looks like a misspelt defined key (``source.cluster.alais`` when
        ``source.cluster.alias`` is defined). The keys of the family are neither parsed
        nor validated here: the plugin reads them from the raw config (e.g. with
        ``ParsedConfig.originals_with_prefix``). ``documentation`` says what they are for,
        in the generated config docs.

        Raises:
            ConfigError: ``prefix`` is empty (that would accept every key).
        """
        if not prefix:
            raise ConfigError(
                "an accepted key prefix must not be empty (it would accept every key)"
            )
        self._prefixes[prefix] = documentation
        return self

    @property
    def accepted_prefixes(self) -> Mapping[str, str]:
        """The prefixes given to :meth:`accept_prefix`, each with its documentation."""
        return self._prefixes

    def accepts(self, name: str) -> bool:
        """Whether ``name`` is a defined key or starts with an accepted prefix."""
        return name in self._keys or name.startswith(tuple(self._prefixes))

    def embed(self, prefix: str, group: str, starting_order: int, child: ConfigDef) -> ConfigDef:
        """Add every key of ``child`` under ``prefix`` (Kafka's ``ConfigDef.embed``); the
        child's accepted prefixes are accepted under ``prefix`` too."""
        for accepted, documentation in child.accepted_prefixes.items():
            self._prefixes.setdefault(prefix + accepted, documentation)
        for i, key in enumerate(child.config_keys.values()):
            self.define_key(
                ConfigKey(
                    name=prefix + key.name,
                    type=key.type,
                    default=key.default,
                    validator=key.validator,
                    importance=key.importance,
                    documentation=key.documentation,
                    group=group,
                    order_in_group=starting_order + i,
                    width=key.width,
                    display_name=key.display_name,
                    dependents=tuple(prefix + d for d in key.dependents),
                    recommender=key.recommender,
                    internal=key.internal,
                )
            )
        return self

    @property
    def config_keys(self) -> Mapping[str, ConfigKey]:
        return self._keys

    def names(self) -> set[str]:
        return set(self._keys)

    def default_values(self) -> dict[str, Any]:
        return {k.name: k.default for k in self._keys.values() if k.has_default}

    def groups(self) -> list[str]:
        seen: dict[str, None] = {}
        for key in self._keys.values():
            if key.group:
                seen.setdefault(key.group)
        return list(seen)

    def __contains__(self, name: object) -> bool:
        return name in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def _parse_one(self, key: ConfigKey, props: Mapping[str, Any]) -> Any:
        if key.name in props:
            value = parse_type(key.name, props[key.name], key.type)
        elif key.has_default:
            value = key.default
        else:
            raise ConfigError(
                f'Missing required configuration "{key.name}" which has no default value.',
                name=key.name,
            )
        if key.validator is not None and (value is not None or key.name in props):
            key.validator(key.name, value)
        return value

    def parse(self, props: Mapping[str, Any]) -> ParsedConfig:
        """Typed values for every key. Raises ConfigError naming the first bad or missing key."""
        values = {key.name: self._parse_one(key, props) for key in self._keys.values()}
        return ParsedConfig(values, props)

    def validate(self, props: Mapping[str, Any]) -> list[ConfigValue]:
        """A ConfigValue per key with its errors; never raises for a user's mistake."""
        results: dict[str, ConfigValue] = {}
        parsed: dict[str, Any] = {}
        for key in self._keys.values():
            result = ConfigValue(
                key.name, props.get(key.name, key.default if key.has_default else None)
            )
            try:
                parsed[key.name] = self._parse_one(key, props)
                result.value = parsed[key.name]
            except ConfigError as exc:
                result.add_error_message(str(exc))
                if key.name not in props or not _parses(key, props[key.name]):
                    # As Kafka's parseForValidate: a value missing or not parsing is null,
                    # and the key's validator then judges that null too.
                    result.value = None
                    _validate_null(key, result)
            results[key.name] = result
        for key in self._keys.values():
            if key.recommender is None:
                continue
            result = results[key.name]
            try:
                result.recommended_values = list(key.recommender.valid_values(key.name, parsed))
                result.visible = key.recommender.visible(key.name, parsed)
            except Exception as exc:  # a recommender's bug must not break validation
                result.add_error_message(f"recommender failed: {exc}")
        return list(results.values())

    def to_markdown(self) -> str:
        """A Markdown table of the public keys, ordered as Kafka's generated config docs.

        Required keys come first, then by importance (HIGH, MEDIUM, LOW), then by name.
        Columns: Name, Type, Default, Valid Values, Importance, Description. The accepted
        prefixes (:meth:`accept_prefix`) follow as a list.
        """
        order = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}
        keys = sorted(
            (k for k in self._keys.values() if not k.internal),
            key=lambda k: (k.has_default, order[k.importance], k.name),
        )
        lines = [
            "| Name | Type | Default | Valid Values | Importance | Description |",
            "|---|---|---|---|---|---|",
        ]
        for key in keys:
            cells = [
                f"`{key.name}`",
                key.type.value.lower(),
                _markdown_default(key),
                _describe_validator(key.validator),
                key.importance.value.lower(),
                key.documentation,
            ]
            lines.append("| " + " | ".join(_markdown_cell(c) for c in cells) + " |")
        if self._prefixes:
            lines += ["", "Keys under these prefixes are accepted too:", ""]
            lines += [
                f"- `{prefix}*`" + (f": {doc}" if doc else "")
                for prefix, doc in sorted(self._prefixes.items())
            ]
        return "\n".join(lines) + "\n"

    def close_matches(self, name: str, *, limit: int = 3) -> list[str]:
        """Defined keys that look like ``name`` (for 'did you mean' messages)."""
        import difflib

        return difflib.get_close_matches(name, list(self._keys), n=limit, cutoff=0.6)
