"""Kafka Connect's config validation and config-definition bodies (``ConfigInfos``).

``PUT /connector-plugins/{plugin}/config/validate`` reports every key of the framework's
connector config and of the connector's own ``config()``, each with its errors, and never
fails for a user's mistake: problems become error messages on the key they concern.

Secrets: what is secret is decided by :class:`~kconnect_runtime.config.Redactor`
from the PASSWORD keys the connector, its converters, transforms and predicates declare
(:func:`declared_password_keys`) and the client password keys. Validation output shows
secret values as ``[hidden]``, and no error message carries a secret or a value a config
provider resolved (:func:`resolve_and_validate`, :meth:`Redactor.safe_message`).
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect_sdk import (
    NO_DEFAULT,
    ConfigDef,
    ConfigError,
    ConfigKey,
    ConfigType,
    ConfigValue,
    ConnectError,
    Connector,
    ConnectorClientConfigOverridePolicy,
    Importance,
    SinkConnector,
    SourceConnector,
    Width,
)
from kconnect_sdk._config_provider import PLACEHOLDER_PATTERN

from kconnect_runtime.config import (
    CONNECTOR_NAME_MAX_CHARS,
    HIDDEN,
    KCONNECT_CONNECTOR_EXTENSIONS,
    KCONNECT_SOURCE_EXTENSIONS,
    SINK_CONNECTOR_CONFIG,
    SOURCE_CONNECTOR_CONFIG,
    ConfigProviders,
    Redactor,
    check_topic_creation_groups,
    client_security_errors,
    log_unknown_connector_keys,
    parse_connector_config,
)
from kconnect_runtime.logcontext import hidden_during
from kconnect_runtime.plugins import (
    CONNECTOR_KINDS,
    CONNECTOR_VERSION_CONFIG,
    PluginDesc,
    PluginKind,
    PluginRegistry,
)
from kconnect_runtime.tasks import (
    PLUGIN_VERSION,
    TransformChain,
    build_converters,
    exactly_once_enabled,
    validate_exactly_once,
)

from ._client_overrides import client_override_values, load_override_policy

__all__ = [
    "HIDDEN",
    "ConnectorValidation",
    "config_infos",
    "config_key_info",
    "connector_redactor",
    "declared_password_keys",
    "format_value",
    "framework_definitions",
    "plugin_config_keys",
    "resolve_and_validate",
    "shown_name",
    "validate_connector",
]


def format_value(value: Any, type_: ConfigType) -> str | None:
    """A value as Kafka's ``ConfigDef.convertToString`` writes it; passwords hidden."""
    if value is None:
        return None
    if type_ is ConfigType.PASSWORD:
        return HIDDEN
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return str(value)


def config_key_info(key: ConfigKey) -> dict[str, Any]:
    """Kafka's ``ConfigKeyInfo`` for one key."""
    return {
        "name": key.name,
        "type": key.type.value.upper(),
        "required": not key.has_default,
        "default_value": format_value(key.default, key.type) if key.has_default else None,
        "importance": key.importance.value.upper(),
        "documentation": key.documentation,
        "group": key.group,
        "order": key.order_in_group,
        "width": key.width.value.upper(),
        "display_name": key.display_name or key.name,
        "dependents": list(key.dependents),
    }


def framework_definitions(
    *,
    sink: bool,
    props: Mapping[str, Any] | None = None,
    defaults: Mapping[str, str | None] | None = None,
) -> ConfigDef:
    """The framework's connector keys as Kafka defines them, for REST's bodies.

    Kafka's ConnectorConfig with SinkConnectorConfig's or SourceConnectorConfig's keys (no
    dead letter queue keys for sources), KIP-891's version keys each after the key of the
    plugin it versions. kconnect's own extra keys are listed only where ``props`` sets them,
    so a config that uses one sees its errors and every other body has Kafka's key set.
    ``defaults`` gives the defaults Kafka derives from the worker and the installed plugins
    when it validates a config (the worker's converters, the newest versions).
    """
    framework = SINK_CONNECTOR_CONFIG if sink else SOURCE_CONNECTOR_CONFIG
    extensions = KCONNECT_CONNECTOR_EXTENSIONS if sink else KCONNECT_SOURCE_EXTENSIONS
    used = props or {}
    given = defaults or {}
    keys: list[ConfigKey] = []
    for defined in framework.config_keys.values():
        if defined.name in extensions and defined.name not in used:
            continue
        key = (
            dataclasses.replace(defined, default=given[defined.name])
            if defined.name in given
            else defined
        )
        keys.append(key)
        versioned = _VERSIONED_KEYS.get(key.name)
        if versioned is not None:
            name = f"{key.name.removesuffix('.class')}.{PLUGIN_VERSION}"
            keys.append(_version_definition(name, versioned, "Common", given.get(name)))
    return ConfigDef(keys)


# The framework keys naming a plugin, with what Kafka calls that plugin in its version key's
# display name; its version key follows it (order_in_group one more).
_VERSIONED_KEYS = {
    "connector.class": "connector",
    "key.converter": "key converter",
    "value.converter": "value converter",
    "header.converter": "header converter",
}


def plugin_config_keys(definition: ConfigDef, kind: PluginKind | None) -> list[dict[str, Any]]:
    """``GET /connector-plugins/{p}/config``: Kafka's ``connectorPluginConfig``.

    The plugin's own keys in their order, then (for a connector) the framework's that the
    plugin does not define itself.
    """
    keys: dict[str, ConfigKey] = {
        k.name: k for k in definition.config_keys.values() if not k.internal
    }
    if kind in CONNECTOR_KINDS:
        for key in framework_definitions(sink=kind is PluginKind.SINK).config_keys.values():
            keys.setdefault(key.name, key)
    return [config_key_info(k) for k in keys.values()]


def _value_info(
    key: ConfigKey | None, value: ConfigValue, raw: Mapping[str, Any], redactor: Redactor
) -> dict[str, Any]:
    type_ = key.type if key is not None else ConfigType.STRING
    shown = raw.get(value.name, value.value)
    if value.value is None and value.error_messages and type_ is not ConfigType.STRING:
        shown = None  # as Kafka: a value that does not parse is shown as null
    if not isinstance(shown, str):
        shown = format_value(shown, type_)
    elif type_ is ConfigType.PASSWORD and not redactor.is_secret(value.name):
        shown = HIDDEN
    else:  # PASSWORD keys are among the redactor's: hidden, valid references as written
        shown = redactor.show(value.name, shown)
    return {
        "name": value.name,
        "value": shown,
        "recommended_values": [format_value(v, type_) for v in value.recommended_values],
        "errors": [redactor.safe_message(m, raw) for m in value.error_messages],
        "visible": value.visible,
    }


def declared_password_keys(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str],
    own: ConfigDef | None,
) -> set[str]:
    """The PASSWORD keys the connector and its converters, transforms and predicates declare.

    Each with the prefix it takes in a connector config (``value.converter.<k>``,
    ``transforms.<alias>.<k>``, ``predicates.<alias>.<k>``). A plugin that cannot be loaded
    or describe its config adds nothing (the client password keys still apply).
    """
    found = (
        {k for k, d in own.config_keys.items() if d.type is ConfigType.PASSWORD} if own else set()
    )

    def add(prefix: str, name: str, *kinds: PluginKind) -> None:
        if not name:
            return
        try:
            definition: ConfigDef = registry.load(name, *kinds)().config()
            keys = definition.config_keys
        except Exception:  # unknown or broken plugins are validation's to report
            return
        found.update(f"{prefix}{k}" for k, d in keys.items() if d.type is ConfigType.PASSWORD)

    for which in ("key", "value", "header"):
        key = f"{which}.converter"
        name = props.get(key) or worker_props.get(key) or _DEFAULT_CONVERTERS.get(which, "")
        kind = PluginKind.HEADER_CONVERTER if which == "header" else PluginKind.CONVERTER
        add(f"{key}.", str(name).strip(), kind)
    for section, kind in (
        ("transforms", PluginKind.TRANSFORMATION),
        ("predicates", PluginKind.PREDICATE),
    ):
        for alias in (a.strip() for a in str(props.get(section, "")).split(",")):
            if alias:
                add(f"{section}.{alias}.", str(props.get(f"{section}.{alias}.type", "")), kind)
    return found


_redactors: dict[tuple[Any, ...], Redactor] = {}
_redactors_lock = threading.Lock()
_REDACTORS_KEPT = 64


def connector_redactor(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    providers: ConfigProviders,
    raw: Mapping[str, str],
    *,
    resolved: Mapping[str, str] | None = None,
    own: ConfigDef | None = None,
) -> Redactor:
    """The :class:`Redactor` of a connector config (cached: REST asks on every request)."""
    cache_key = (
        frozenset(raw.items()),
        frozenset((resolved or raw).items()),
        frozenset(providers.providers),
        None
        if own is None
        else frozenset(k for k, d in own.config_keys.items() if d.type is ConfigType.PASSWORD),
    )
    with _redactors_lock:
        found = _redactors.get(cache_key)
    if found is not None:
        return found
    if own is None:
        try:
            cls = registry.load(str(raw.get("connector.class", "")), *CONNECTOR_KINDS)
            own = cls().config()
        except Exception:  # an unknown or broken connector still has client passwords
            own = None
    made = Redactor.for_config(
        raw,
        resolved,
        declared=declared_password_keys(registry, worker_props, raw, own),
        providers=providers.providers,
    )
    with _redactors_lock:
        # Configs change rarely; this only bounds the memory, oldest first (a
        # worker that creates and deletes connectors all day kept up to 512 of them).
        while len(_redactors) >= _REDACTORS_KEPT:
            del _redactors[next(iter(_redactors))]
        _redactors[cache_key] = made
    return made


def shown_name(name: str) -> str:
    """A connector name as messages show it: quoted, and cut short when it is too long to be
    valid (a 2 MiB name must not end up in every log line)."""
    if len(name) <= CONNECTOR_NAME_MAX_CHARS:
        return repr(name)
    return f"{name[:40]!r}... ({len(name)} characters)"


def resolve_and_validate(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    providers: ConfigProviders,
    name: str,
    props: Mapping[str, str],
    *,
    policy: ConnectorClientConfigOverridePolicy | None = None,
) -> tuple[dict[str, str], ConnectorValidation]:
    """Resolve ``props``' placeholders and validate strictly (create and update).

    Errors are ConfigErrors prefixed ``connector '<name>': ``; none carries a secret or a
    value a provider resolved, nor a cause that does (the original is dropped when it did).
    """
    redactor = connector_redactor(registry, worker_props, providers, props)
    for key, value in props.items():
        # A secret that looks like ${x:y} but names no configured provider is a literal
        # secret: the resolver's error would quote it.
        if redactor.is_secret(key) and value:
            for match in PLACEHOLDER_PATTERN.finditer(value):
                if match.group(1) not in providers.providers:
                    known = ", ".join(sorted(providers.providers)) or "none"
                    raise ConfigError(
                        f"connector {shown_name(name)}: config {key!r} holds a ${{provider:path:key}} "
                        "placeholder whose provider is not configured (value hidden: it is a "
                        f"password; configured providers: {known}); configure the provider "
                        "or correct the value",
                        name=key,
                    )
    resolved = dict(props)
    try:
        resolved = providers.resolve(props)
        redactor = connector_redactor(registry, worker_props, providers, props, resolved=resolved)
        checked = validate_connector(registry, worker_props, resolved, strict=True, policy=policy)
    except ConfigError as exc:
        safe = redactor.safe_message(str(exc), props)
        error = ConfigError(f"connector {shown_name(name)}: {safe}", name=exc.name)
        if safe == str(exc) and not _holds_secret(exc, redactor):
            error.value = exc.value
            raise error from exc
        raise error from None
    except Exception as exc:
        if not _holds_secret(exc, redactor):
            raise
        raise ConnectError(f"connector {shown_name(name)}: {redactor.scrub(str(exc))}") from None
    return resolved, checked


def _provider_names(worker_props: Mapping[str, str]) -> list[str]:
    """The config providers the worker config names (``config.providers``)."""
    return [n.strip() for n in worker_props.get("config.providers", "").split(",") if n.strip()]


def _holds_secret(exc: BaseException, redactor: Redactor) -> bool:
    """Whether ``exc`` or an exception it came from mentions a secret."""
    seen: BaseException | None = exc
    while seen is not None:
        text = str(seen)
        if redactor.scrub(text) != text:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


_VERSION_DOC = (
    "Version of the {what} plugin to use (KIP-891): an exact version, a Maven range such as "
    "[1.0,2.0), a PEP 440 specifier such as >=1,<2, or latest. Default: the newest installed."
)


_ALL_KINDS = tuple(PluginKind)

_DEFAULT_CONVERTERS = {"header": "org.apache.kafka.connect.storage.SimpleHeaderConverter"}


def _enriched_defaults(
    registry: PluginRegistry, worker_props: Mapping[str, str], props: Mapping[str, str]
) -> dict[str, str | None]:
    """The defaults Kafka's ``enrichedConfigDef`` gives a connector config being validated.

    The connector's version: the newest installed. Each converter: the worker's (the header
    converter always has one), and its version: the worker's ``*.plugin.version`` or the
    newest installed of the converter the connector will use. Nothing without a
    ``connector.class``, as in Kafka.
    """
    class_name = str(props.get("connector.class") or "").strip()
    if not class_name:
        return {}
    newest = registry.versions(class_name, *CONNECTOR_KINDS)
    out: dict[str, str | None] = {CONNECTOR_VERSION_CONFIG: newest[-1] if newest else None}
    for which in ("key", "value", "header"):
        key = f"{which}.converter"
        vkey = f"{key}.{PLUGIN_VERSION}"
        kind = PluginKind.HEADER_CONVERTER if which == "header" else PluginKind.CONVERTER
        own = props.get(key)
        worker = worker_props.get(key) or _DEFAULT_CONVERTERS.get(which)
        if own is None and worker is None:
            out[key] = out[vkey] = None
            continue
        out[key] = worker
        version = None if own is not None else worker_props.get(vkey)
        if version is None:
            installed = registry.versions(str(own if own is not None else worker), kind)
            version = installed[-1] if installed else None
        out[vkey] = version
    return out


def _version_definition(
    name: str, what: str, group: str | None, default: str | None = None
) -> ConfigKey:
    framework = what in _VERSIONED_KEYS.values()
    plugin_key = "connector.class" if what == "connector" else name.rsplit(".", 2)[0]
    order = 0
    if framework:
        order = 1 + SOURCE_CONNECTOR_CONFIG.config_keys[plugin_key].order_in_group
    return ConfigKey(
        name=name,
        type=ConfigType.STRING,
        default=default,
        validator=None,
        # As Kafka's ConnectorConfig: the connector's version matters more than a converter's.
        importance=Importance.MEDIUM if what == "connector" else Importance.LOW,
        documentation=_VERSION_DOC.format(what=what),
        group=group,
        order_in_group=order,
        width=(Width.MEDIUM if what == "connector" else Width.SHORT) if framework else Width.NONE,
        display_name=f"{what[:1].upper()}{what[1:]} version",
    )


def _plugin_version_keys(
    worker_props: Mapping[str, str], props: Mapping[str, str]
) -> list[tuple[str, str, tuple[PluginKind, ...], str, str | None]]:
    """Every ``*.plugin.version`` key of a connector config, with the plugin it versions.

    Each entry: (version key, plugin name, kinds, what it is, group).
    """
    out: list[tuple[str, str, tuple[PluginKind, ...], str, str | None]] = []
    for which in ("key", "value", "header"):
        key = f"{which}.converter"
        name = props.get(key) or worker_props.get(key) or _DEFAULT_CONVERTERS.get(which, "")
        kinds = (PluginKind.HEADER_CONVERTER,) if which == "header" else (PluginKind.CONVERTER,)
        out.append((f"{key}.{PLUGIN_VERSION}", name, kinds, f"{which} converter", "Common"))
    for section, kind in (
        ("transforms", PluginKind.TRANSFORMATION),
        ("predicates", PluginKind.PREDICATE),
    ):
        for alias in (a.strip() for a in str(props.get(section, "")).split(",")):
            if alias:
                type_key = f"{section}.{alias}.type"
                group = f"{section.capitalize()}: {alias}"
                what = f"{kind.value} {alias!r}"
                out.append(
                    (
                        f"{section}.{alias}.{PLUGIN_VERSION}",
                        props.get(type_key, ""),
                        (kind,),
                        what,
                        group,
                    )
                )
    return out


@dataclass(slots=True)
class ConnectorValidation:
    """What validating a connector config found (see :func:`validate_connector`).

    Attributes:
        plugin: The connector plugin the config names.
        instance: The connector object that validated it (create and update keep it).
        parsed: The framework's part of the config, parsed (None when it does not parse).
        infos: Kafka's ``ConfigInfos`` (None in strict mode).
    """

    plugin: PluginDesc
    instance: Connector | None
    parsed: dict[str, Any] | None
    infos: dict[str, Any] | None


def validate_connector(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str],
    *,
    strict: bool = False,
    policy: ConnectorClientConfigOverridePolicy | None = None,
) -> ConnectorValidation:
    """The one validator of connector configs: create, update and ``config/validate``.

    Resolves the connector plugin, parses the framework's connector config, builds the
    converters and transforms once (then closes them) and asks the connector's own
    ``validate()``. With ``strict`` (create, update) the first problem is raised: a
    ConfigError naming the key, or the plugin's own error, and nothing after it runs;
    otherwise (``config/validate``) every problem becomes an error message on the key it
    concerns and the result carries Kafka's ``ConfigInfos``: a
    ``connector.plugin.version`` no installed version satisfies is an error on that key
    (recommending the installed versions), and the rest is validated against the newest.
    Client overrides are checked against ``policy`` (default: the one the worker config
    names).
    """
    class_name = str(props.get("connector.class", "")).strip()
    if strict and not class_name:
        raise ConfigError(
            'Missing required configuration "connector.class" which has no default value.',
            name="connector.class",
        )
    version_error: str | None = None
    try:
        plugin = registry.resolve(
            class_name,
            *CONNECTOR_KINDS,
            key="connector.class",
            version=props.get(CONNECTOR_VERSION_CONFIG),
        )
    except ConfigError as exc:
        if strict or exc.name != CONNECTOR_VERSION_CONFIG:
            raise
        version_error = str(exc)
        plugin = registry.resolve(class_name, *CONNECTOR_KINDS, key="connector.class")
    cls = plugin.load()
    sink = issubclass(cls, SinkConnector)
    if policy is None:  # validation outside a worker (kconnect validate): the config's own
        own_policy = load_override_policy(registry, worker_props)
        try:
            return validate_connector(
                registry, worker_props, props, strict=strict, policy=own_policy
            )
        finally:
            own_policy.close()
    if strict:
        try:
            return _validate_strictly(
                registry, worker_props, props, plugin, cls, sink=sink, policy=policy
            )
        except ConfigError as exc:
            # Kafka validates the whole config and answers every error at once.
            every = _every_config_error(registry, worker_props, props, policy)
            if every is None:
                raise
            raise every from exc
    try:
        parsed = dict(parse_connector_config(props, sink=sink))
    except ConfigError:
        parsed = None
    infos, checked = _config_infos(
        registry,
        worker_props,
        props,
        plugin,
        cls,
        sink=sink,
        version_error=version_error,
        policy=policy,
    )
    return ConnectorValidation(plugin, checked, parsed, infos)


def _every_config_error(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str],
    policy: ConnectorClientConfigOverridePolicy,
) -> ConfigError | None:
    """Kafka's refusal of an invalid connector config (``maybeAddConfigErrors``): every
    error message of the validation, one per line; None when validation finds none."""
    try:
        infos = config_infos(registry, worker_props, props, policy=policy)
    except ConfigError:
        return None
    messages = [
        (entry["value"]["name"], message)
        for entry in infos["configs"]
        if entry["value"] is not None
        for message in entry["value"]["errors"]
    ]
    if not messages:
        return None
    return ConfigError(
        f"Connector configuration is invalid and contains the following {len(messages)} "
        "error(s):\n"
        + "".join(f"{message}\n" for _, message in messages)
        + "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`",
        name=messages[0][0],
    )


def _validate_strictly(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str],
    plugin: PluginDesc,
    cls: type[Connector],
    *,
    sink: bool,
    policy: ConnectorClientConfigOverridePolicy,
) -> ConnectorValidation:
    """Create and update: the first problem is raised, and nothing after it runs."""
    parsed: dict[str, Any] | None = dict(parse_connector_config(props, sink=sink))
    if not sink:  # the listed topic creation groups' own keys (KIP-158)
        check_topic_creation_groups(props)
    # Client settings librdkafka cannot honour are refused now, not when a task starts.
    for key, message in client_security_errors(worker_props, props):
        raise ConfigError(message, name=key)
    # Built once to validate converters and transforms; tasks get their own instances.
    build_converters(registry, worker_props, props).close()
    # Each transform's and predicate's own keys, as Kafka's enriched ConnectorConfig checks
    # them at create and update too (a range a plugin declares is enforced here).
    enriched: dict[str, ConfigValue] = {}
    _enrich_aliases(registry, props, {}, enriched)
    for value in enriched.values():
        if value.error_messages:
            raise ConfigError(value.error_messages[0], name=value.name)
    TransformChain.from_config(registry, props).close()
    instance: Connector = cls()
    _raise_connector_errors(instance.validate(props))
    # Exactly-once preflight (KIP-618), as Kafka's distributed herder runs it.
    for key, messages in _exactly_once_errors(worker_props, props, instance).items():
        raise ConfigError(f"Invalid value for {key}: {' '.join(messages)}", name=key)
    for value in client_override_values(policy, worker_props, props, sink=sink):
        if value.error_messages:
            raise ConfigError(value.error_messages[0], name=value.name)
    definition = instance.config()
    log_unknown_connector_keys(props, definition.config_keys, definition.accepted_prefixes)
    return ConnectorValidation(plugin, instance, parsed, None)


def _exactly_once_errors(
    worker_props: Mapping[str, str], props: Mapping[str, str], instance: Connector
) -> dict[str, list[str]]:
    """Kafka's exactly-once checks of a source connector; distributed workers only."""
    if not isinstance(instance, SourceConnector) or not worker_props.get("group.id"):
        return {}
    return validate_exactly_once(instance, props, worker_enabled=exactly_once_enabled(worker_props))


def _raise_connector_errors(results: Sequence[ConfigValue]) -> None:
    """A ConfigError listing what the connector's ``validate()`` found, if anything."""
    errors = [
        f"{value.name}: {msg}" if not msg.startswith(("Invalid value", "Missing required")) else msg
        for value in results
        for msg in value.error_messages
    ]
    if errors:
        first_key = next((v.name for v in results if v.error_messages), None)
        raise ConfigError(
            f"configuration is invalid and contains {len(errors)} error(s): " + "; ".join(errors),
            name=first_key,
        )


_NULL_VALUE = "Null value can not be supplied as the configuration value."


def config_infos(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str | None],
    *,
    policy: ConnectorClientConfigOverridePolicy | None = None,
) -> dict[str, Any]:
    """Kafka's ``ConfigInfos`` for a connector config (:func:`validate_connector`'s).

    A key given as JSON ``null`` is an error on that key, as in Kafka's
    ``validateConnectorConfig``; the rest is validated without it.
    """
    given = {k: v for k, v in props.items() if v is not None}
    infos = validate_connector(registry, worker_props, given, policy=policy).infos
    assert infos is not None  # only strict validation leaves it out
    for key in (k for k, v in props.items() if v is None):
        entry = next(
            (c for c in infos["configs"] if c["value"] and c["value"]["name"] == key), None
        )
        if entry is None:
            entry = {
                "definition": None,
                "value": {
                    "name": key,
                    "value": None,
                    "recommended_values": [],
                    "errors": [],
                    "visible": True,
                },
            }
            infos["configs"].insert(0, entry)
        entry["value"]["errors"].append(_NULL_VALUE)
        infos["error_count"] += 1
    return infos


def _config_infos(
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str],
    plugin: PluginDesc,
    cls: type[Connector],
    *,
    sink: bool,
    version_error: str | None,
    policy: ConnectorClientConfigOverridePolicy,
) -> tuple[dict[str, Any], Connector | None]:
    """Every key of the framework's config and of the connector's own, with its errors.

    What is secret in ``props`` is hidden in the result, and from the log lines made while
    the plugins look at them (for this call only: a client may validate often).
    """
    try:
        own: ConfigDef | None = cls().config()
    except Exception:  # the connector's validate() below reports it
        own = None
    framework = SINK_CONNECTOR_CONFIG if sink else SOURCE_CONNECTOR_CONFIG
    redactor = Redactor.for_config(
        props,
        declared={k for k, d in framework.config_keys.items() if d.type is ConfigType.PASSWORD}
        | declared_password_keys(registry, worker_props, props, own),
        providers=_provider_names(worker_props),
        register=False,
    )
    with hidden_during(redactor.values):
        return _checked_config_infos(
            registry,
            worker_props,
            props,
            plugin,
            cls,
            redactor,
            sink=sink,
            version_error=version_error,
            policy=policy,
        )


def _enrich_aliases(
    registry: PluginRegistry,
    props: Mapping[str, str],
    definitions: dict[str, ConfigKey],
    values: dict[str, ConfigValue],
) -> None:
    """Kafka's ``ConnectorConfig.enrich``: each transform's and predicate's keys, validated.

    Per alias: ``<section>.<alias>.type`` (required, recommending the installed plugins),
    then (transforms) ``predicate`` and ``negate``, then the plugin's own keys, all prefixed
    and in group ``Transforms: <alias>`` / ``Predicates: <alias>``.
    """
    sections = (
        ("transforms", PluginKind.TRANSFORMATION, "transformation", "Transformation"),
        ("predicates", PluginKind.PREDICATE, "predicate", "Predicate"),
    )
    for section, kind, what, base in sections:
        aliases = [a.strip() for a in str(props.get(section, "")).split(",") if a.strip()]
        for alias in dict.fromkeys(aliases):
            prefix = f"{section}.{alias}."
            group = f"{section.capitalize()}: {alias}"
            type_key = prefix + "type"
            definitions[type_key] = ConfigKey(
                name=type_key,
                type=ConfigType.CLASS,
                default=NO_DEFAULT,
                validator=None,
                importance=Importance.HIGH,
                documentation=f"Class for the '{alias}' {what}.",
                group=group,
                order_in_group=0,
                width=Width.LONG,
                display_name=f"{base} type for {alias}",
            )
            version_key = prefix + PLUGIN_VERSION
            definitions[version_key] = ConfigKey(
                name=version_key,
                type=ConfigType.STRING,
                default=None,
                validator=None,
                importance=Importance.HIGH,
                documentation=f"Version of the {what} plugin to use for '{alias}' (KIP-891); "
                "default: the newest installed.",
                group=group,
                order_in_group=1,
                width=Width.LONG,
                display_name=f"{base} version for {alias}",
            )
            type_name = str(props.get(type_key, "")).strip()
            negate_without_predicate = (
                kind is PluginKind.TRANSFORMATION
                and prefix + "negate" in props
                and prefix + "predicate" not in props
            )
            type_value = ConfigValue(
                type_key, type_name or None, sorted({p.name for p in registry.plugins(kind)})
            )
            values[type_key] = type_value
            if negate_without_predicate:  # Kafka's check, reported on the alias's type
                type_value.add_error_message(
                    f"Config '{prefix}negate' was provided but there is no config "
                    f"'{prefix}predicate' defining a predicate to be negated."
                )
            if not type_name:
                type_value.add_error_message(
                    f'Missing required configuration "{type_key}" which has no default value.'
                )
                continue
            try:
                plugin = registry.load(
                    type_name, kind, key=type_key, version=props.get(prefix + PLUGIN_VERSION)
                )
                if inspect.isabstract(plugin):
                    # Kafka's Utils.ensureConcreteSubclass, naming the key it is set on.
                    raise ConfigError(_abstract_message(registry, type_name, kind), name=type_key)
                own: ConfigDef = plugin().config()
            except ConfigError as exc:  # unknown or broken: on the type; no such version:
                target = values.get(exc.name or "", type_value)  # on the version key
                meant = _abstract_message(registry, type_name, kind)
                # A Java base class whose nested classes are the plugins (InsertField for
                # InsertField$Value) is Kafka's abstract class, not an unknown one.
                target.add_error_message(meant if "Did you mean" in meant else str(exc))
                if not registry.versions(type_name, kind):
                    type_value.value = None  # as Kafka: a class not found parses to null
                continue
            except Exception as exc:  # a plugin whose config() fails
                type_value.add_error_message(f"cannot read the config definition: {exc}")
                continue
            keys = list(_IMPLICIT_TRANSFORM_KEYS) if kind is PluginKind.TRANSFORMATION else []
            implicit = {k.name for k in keys}
            keys += [k for k in own.config_keys.values() if k.name not in implicit]
            # Kafka's ConfigDef.embed: the plugin's keys in sortedConfigs() order, numbered on
            # after the type and version keys, each in the alias's group (and its own).
            prefixed = ConfigDef(
                dataclasses.replace(
                    key,
                    name=prefix + key.name,
                    group=group if key.group is None else f"{group}: {key.group}",
                    order_in_group=2 + i,
                    dependents=tuple(prefix + d for d in key.dependents),
                )
                for i, key in enumerate(_sorted_configs(keys))
            )
            for name, key in prefixed.config_keys.items():
                definitions.setdefault(name, key)
            for value in prefixed.validate(props):
                values.setdefault(value.name, value)


def _abstract_message(registry: PluginRegistry, name: str, kind: PluginKind) -> str:
    """Kafka's refusal of an abstract class, with the concrete ones it may have meant (the
    installed plugins named after it, as ``InsertField`` for ``InsertField$Value``)."""
    message = "This class is abstract and cannot be created."
    meant = sorted(p.name for p in registry.plugins(kind) if p.name.startswith(f"{name}$"))
    return f"{message} Did you mean {', '.join(meant)}?" if meant else message


_IMPORTANCE_RANK = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}


def _sorted_configs(keys: Sequence[ConfigKey]) -> list[ConfigKey]:
    """Kafka's ``ConfigDef.sortedConfigs``: by group (no group first, then groups in the
    order they were first defined), order in group, required before defaulted, importance
    and name."""
    groups: dict[str, int] = {}
    for key in keys:
        if key.group is not None:
            groups.setdefault(key.group, len(groups))
    return sorted(
        keys,
        key=lambda k: (
            -1 if k.group is None else groups[k.group],
            k.order_in_group,
            k.has_default,
            _IMPORTANCE_RANK[k.importance],
            k.name,
        ),
    )


# The keys every transformation takes (Kafka's TransformationStage.PREDICATE/NEGATE_CONFIG).
_IMPLICIT_TRANSFORM_KEYS = tuple(
    ConfigDef()
    .define(
        "predicate",
        ConfigType.STRING,
        None,
        importance=Importance.MEDIUM,
        documentation="Alias of the predicate (listed in 'predicates') that decides whether "
        "this transformation applies to a record.",
    )
    .define(
        "negate",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        documentation="Whether the predicate's answer is negated.",
    )
    .config_keys.values()
)


def _checked_config_infos(  # noqa: PLR0917  # the parts of one validation, passed through
    registry: PluginRegistry,
    worker_props: Mapping[str, str],
    props: Mapping[str, str],
    plugin: PluginDesc,
    cls: type[Connector],
    redactor: Redactor,
    *,
    sink: bool,
    version_error: str | None,
    policy: ConnectorClientConfigOverridePolicy,
) -> tuple[dict[str, Any], Connector | None]:
    class_name = str(props.get("connector.class", "")).strip()

    framework = SINK_CONNECTOR_CONFIG if sink else SOURCE_CONNECTOR_CONFIG
    defaults = _enriched_defaults(registry, worker_props, props)
    shown = framework_definitions(sink=sink, props=props, defaults=defaults)
    with_defaults = {**{k: v for k, v in defaults.items() if v is not None}, **props}
    values: dict[str, ConfigValue] = {
        v.name: v for v in framework.validate(with_defaults) if v.name in shown
    }
    for which in ("key", "value", "header"):
        converter = values[f"{which}.converter"]
        kind = PluginKind.HEADER_CONVERTER if which == "header" else PluginKind.CONVERTER
        converter.recommended_values = sorted({p.name for p in registry.plugins(kind)})
    definitions: dict[str, ConfigKey] = dict(shown.config_keys)
    # KIP-891's version keys, each recommending the installed versions of its plugin.
    values[CONNECTOR_VERSION_CONFIG] = ConfigValue(
        CONNECTOR_VERSION_CONFIG,
        props.get(CONNECTOR_VERSION_CONFIG, defaults.get(CONNECTOR_VERSION_CONFIG)),
        list(registry.versions(class_name, *CONNECTOR_KINDS)),
        [version_error] if version_error else [],
    )
    for vkey, name, kinds, what, group in _plugin_version_keys(worker_props, props):
        if not vkey.startswith(("transforms.", "predicates.")):  # those: with their alias
            definitions.setdefault(vkey, _version_definition(vkey, what, group))
        installed = registry.versions(name, *kinds) if name else []
        values[vkey] = ConfigValue(vkey, props.get(vkey, defaults.get(vkey)), list(installed))

    def add_error(key: str | None, message: str) -> None:
        target = key if key in values else "connector.class"
        if message not in values[target].error_messages:
            values[target].add_error_message(message)

    if sink:
        has_topics = bool(str(props.get("topics", "")).strip())
        has_regex = bool(str(props.get("topics.regex", "")).strip())
        if has_topics == has_regex:
            message = (
                "Must configure one of topics or topics.regex"
                if not has_topics
                else "topics and topics.regex are mutually exclusive options, but both are set."
            )
            add_error("topics", message)
            add_error("topics.regex", message)  # Kafka reports it on both keys
    if not sink:  # the listed topic creation groups' own keys (KIP-158)
        try:
            check_topic_creation_groups(props)
        except ConfigError as exc:
            group_key = exc.name or "topic.creation.groups"
            values.setdefault(group_key, ConfigValue(group_key, props.get(group_key), [], []))
            add_error(group_key, str(exc))
    for client_key, message in client_security_errors(worker_props, props):
        if client_key not in values:
            values[client_key] = ConfigValue(client_key, props.get(client_key), [], [])
        add_error(client_key, message)
    try:
        build_converters(registry, worker_props, props).close()
    except ConfigError as exc:
        add_error(exc.name, str(exc))
        named = str(props.get(exc.name or "") or "")
        if exc.name in _VERSIONED_KEYS and named and not registry.versions(named, *_ALL_KINDS):
            # As Kafka: a class that cannot be found parses to null, and its version key
            # (with nothing to recommend) is hidden.
            values[exc.name].value = None
            values[f"{exc.name}.{PLUGIN_VERSION}"].visible = False
    except Exception as exc:  # a converter's own bug still reads as a validation error
        add_error("value.converter", f"cannot configure the converters: {exc}")
    _enrich_aliases(registry, props, definitions, values)
    enriched_errors = any(
        v.error_messages for k, v in values.items() if k.startswith(("transforms.", "predicates."))
    )
    try:
        TransformChain.from_config(registry, props).close()
    except ConfigError as exc:
        if not enriched_errors:  # else the alias's own keys already say what is wrong
            add_error(exc.name or "transforms", str(exc))
    except Exception as exc:
        if not enriched_errors:
            add_error("transforms", f"cannot configure the transforms: {exc}")

    own: ConfigDef | None = None
    instance: Connector | None = None
    try:
        instance = cls()
        own = instance.config()
        for value in instance.validate(props):
            if value.name in values:
                values[value.name].error_messages.extend(
                    m for m in value.error_messages if m not in values[value.name].error_messages
                )
            else:
                values[value.name] = value
    except Exception as exc:  # a connector's bug in validate() must not become a 500
        add_error("connector.class", f"the connector's validate() failed: {exc}")
    if instance is not None:  # Exactly-once preflight (KIP-618)
        for eos_key, messages in _exactly_once_errors(worker_props, props, instance).items():
            for message in messages:
                add_error(eos_key, message)
    if own is not None:
        for name, key in own.config_keys.items():
            definitions.setdefault(name, key)
    try:
        overrides = client_override_values(policy, worker_props, props, sink=sink)
    except ConfigError as exc:  # a custom policy's own failure, on the connector
        overrides = []
        add_error("connector.class", str(exc))

    groups: list[str] = []
    for definition in definitions.values():
        if definition.group and definition.group not in groups:
            groups.append(definition.group)
    if own is not None:
        # A key the connector declares PASSWORD only now (config() failed earlier) is hidden too.
        late = {k for k, d in own.config_keys.items() if d.type is ConfigType.PASSWORD}
        if not late <= redactor.declared:
            redactor = Redactor.for_config(
                props,
                declared=redactor.declared | late,
                providers=redactor.providers,
                register=False,
            )
    # Kafka's generateResult: values no key defines first, then every defined key in order.
    configs = [
        {"definition": None, "value": _value_info(None, value, props, redactor)}
        for name, value in values.items()
        if name not in definitions
    ]
    for name, found in definitions.items():
        checked = values.get(name)
        configs.append(
            {
                "definition": config_key_info(found),
                "value": None if checked is None else _value_info(found, checked, props, redactor),
            }
        )
    # Kafka's mergeConfigInfos: each client's overrides after the connector's keys. Kafka
    # describes a known client key with the client's own definition; kconnect has none.
    configs.extend(
        {"definition": None, "value": _value_info(None, value, props, redactor)}
        for value in overrides
    )
    return {
        # As Kafka's validateConnectorConfig: named after connector.class as the config
        # gives it (an alias stays an alias).
        "name": str(props.get("connector.class") or plugin.name),
        "error_count": sum(len(v.error_messages) for v in (*values.values(), *overrides)),
        "groups": groups,
        "configs": configs,
    }, instance
