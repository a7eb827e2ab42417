"""kconnect SDK: everything a Kafka Connect-style plugin author needs, from one import path.

Example:
    >>> from kconnect_sdk import SourceConnector, SourceTask, SourceRecord, ConfigDef
"""

from __future__ import annotations

from ._config import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    ParsedConfig,
    Password,
    Range,
    Recommender,
    Validator,
    ValidList,
    ValidString,
    Width,
    convert_to_string,
    non_empty_string,
    parse_type,
)
from ._connector import (
    Connector,
    ConnectorContext,
    ErrantRecordReporter,
    ExactlyOnceSupport,
    OffsetStorageReader,
    SinkConnector,
    SinkTask,
    SinkTaskContext,
    SourceConnector,
    SourceTask,
    SourceTaskContext,
    Task,
)
from ._converter import Converter, ConverterType, HeaderConverter
from ._errors import (
    AlreadyExistsError,
    ConfigError,
    ConnectError,
    DataError,
    IllegalWorkerStateError,
    NotFoundError,
    RetriableError,
    SchemaBuilderError,
    SchemaProjectorError,
)
from ._headers import Header, Headers
from ._logical import Date, Decimal, Time, Timestamp
from ._records import (
    ConnectRecord,
    RecordMetadata,
    SinkRecord,
    SourceRecord,
    TimestampType,
    TopicPartition,
)
from ._schema import Field, Schema, SchemaAndValue, SchemaBuilder, Type, validate_value
from ._struct import Struct
from ._transform import Predicate, Transformation
from ._versioned import Versioned, distribution_version

__all__ = [
    "NO_DEFAULT",
    "AlreadyExistsError",
    "ConfigDef",
    "ConfigError",
    "ConfigKey",
    "ConfigType",
    "ConfigValue",
    "ConnectError",
    "ConnectRecord",
    "Connector",
    "ConnectorContext",
    "Converter",
    "ConverterType",
    "DataError",
    "Date",
    "Decimal",
    "ErrantRecordReporter",
    "ExactlyOnceSupport",
    "Field",
    "Header",
    "HeaderConverter",
    "Headers",
    "IllegalWorkerStateError",
    "Importance",
    "NotFoundError",
    "OffsetStorageReader",
    "ParsedConfig",
    "Password",
    "Predicate",
    "Range",
    "Recommender",
    "RecordMetadata",
    "RetriableError",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SchemaBuilderError",
    "SchemaProjectorError",
    "SinkConnector",
    "SinkRecord",
    "SinkTask",
    "SinkTaskContext",
    "SourceConnector",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "Struct",
    "Task",
    "Time",
    "Timestamp",
    "TimestampType",
    "TopicPartition",
    "Transformation",
    "Type",
    "ValidList",
    "ValidString",
    "Validator",
    "Versioned",
    "Width",
    "convert_to_string",
    "distribution_version",
    "non_empty_string",
    "parse_type",
    "validate_value",
]
