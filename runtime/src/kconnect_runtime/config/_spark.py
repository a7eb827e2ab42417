"""Worker config keys of the spark engine (``engine=spark``). Imports no PySpark.

Every other ``spark.*`` key of the worker config (``spark.executor.memory``,
``spark.archives``, ``spark.task.maxFailures``, …) goes to the SparkSession builder as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    ParsedConfig,
    Range,
    ValidString,
)

__all__ = ["CYCLE_KEYS", "SPARK_ENGINE_CONFIG", "parse_spark_engine_config", "spark_session_conf"]

SPARK_ENGINE_CONFIG: Final = (
    ConfigDef()
    .define(
        "spark.master",
        ConfigType.STRING,
        "local[*]",
        importance=Importance.MEDIUM,
        documentation="engine=spark: the Spark master URL (local[N,F], spark://…, yarn, "
        "k8s://…). local[N,F] allows F attempts per task, so Spark retries a failed cycle.",
    )
    .define(
        "spark.app.name",
        ConfigType.STRING,
        "kconnect",
        importance=Importance.LOW,
        documentation="engine=spark: the Spark application name.",
    )
    .define(
        "spark.source.batch.max.records",
        ConfigType.INT,
        100000,
        Range.at_least(1),
        importance=Importance.MEDIUM,
        documentation="engine=spark: most records one source task polls in one cycle "
        "(one Spark task); also bounds the records a failed cycle can duplicate.",
    )
    .define(
        "spark.source.batch.max.ms",
        ConfigType.LONG,
        1000,
        Range.at_least(1),
        importance=Importance.MEDIUM,
        documentation="engine=spark: how long one source cycle polls at most, in ms.",
    )
    .define(
        "spark.sink.batch.max.records",
        ConfigType.INT,
        100000,
        Range.at_least(1),
        importance=Importance.MEDIUM,
        documentation="engine=spark: most records one sink cycle reads from each topic partition.",
    )
    .define(
        "spark.sink.batch.max.ms",
        ConfigType.LONG,
        30000,
        Range.at_least(1),
        importance=Importance.LOW,
        documentation="engine=spark: how long one sink cycle may consume before it "
        "puts, pre-commits and returns what it has.",
    )
    .define(
        "spark.cycle.idle.ms",
        ConfigType.LONG,
        500,
        Range.at_least(0),
        importance=Importance.LOW,
        documentation="engine=spark: pause between cycles of a task when its last cycle "
        "moved no record.",
    )
    .define(
        "spark.cycle.growth.max",
        ConfigType.INT,
        8,
        Range.at_least(1),
        importance=Importance.LOW,
        documentation="engine=spark: a cycle that ended on its bound with records still "
        "coming (a full batch, or a source still producing when spark.source.batch.max.ms "
        "was up) is followed at once by one with twice the bounds, up to this factor times "
        "spark.source.batch.max.records / spark.source.batch.max.ms (source) or "
        "spark.sink.batch.max.records (sink); a cycle that drained its source or partitions "
        "goes back to the configured bounds. A grown source cycle polls at most half of "
        "task.shutdown.graceful.timeout.ms (or max.ms, if that is longer), so that a stop "
        "waits for it. A failed cycle repeats at most max.records times this factor. "
        "1 turns growth off.",
    )
    .define(
        "spark.plugin.path.ship",
        ConfigType.STRING,
        "auto",
        ValidString.one_of("auto", "true", "false", case_insensitive=True),
        importance=Importance.LOW,
        documentation="engine=spark: whether each plugin.path location is packed (tar.gz) "
        "and shipped to the executors with SparkContext.addArchive, which then run its "
        "plugins from the shipped copy. auto: ship unless spark.master is local[...].",
    )
)

CYCLE_KEYS: Final = frozenset(
    name
    for name in SPARK_ENGINE_CONFIG.config_keys
    if name not in ("spark.master", "spark.app.name")
)


def parse_spark_engine_config(props: Mapping[str, str]) -> ParsedConfig:
    """The spark engine's keys of a worker config; ConfigError names the bad key."""
    try:
        return SPARK_ENGINE_CONFIG.parse(props)
    except ConfigError as exc:
        raise ConfigError(f"worker config (engine=spark): {exc}", name=exc.name) from exc


def spark_session_conf(props: Mapping[str, str]) -> dict[str, str]:
    """The ``spark.*`` settings for the SparkSession builder (the engine's own keys left out)."""
    parsed = parse_spark_engine_config(props)
    conf = {k: str(v) for k, v in props.items() if k.startswith("spark.") and k not in CYCLE_KEYS}
    conf["spark.master"] = parsed["spark.master"]
    conf["spark.app.name"] = parsed["spark.app.name"]
    return conf
