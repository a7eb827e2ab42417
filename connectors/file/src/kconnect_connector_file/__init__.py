"""FileStream source and sink connectors, compatible with Apache Kafka's ``connect-file``.

The source turns each line of a file (or standard input) into a STRING record, with the
byte position after the line as its offset, so it resumes where it stopped. The sink
appends each record's value as a line to a file (or standard output).

Example:
    A source, as in Kafka's ``config/connect-file-source.properties``::

        name=local-file-source
        connector.class=org.apache.kafka.connect.file.FileStreamSourceConnector
        tasks.max=1
        file=test.txt
        topic=connect-test

    and a sink, as in ``config/connect-file-sink.properties``::

        name=local-file-sink
        connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector
        tasks.max=1
        file=test.sink.txt
        topics=connect-test

    ``connector.class`` also accepts the short aliases ``FileStreamSource`` and
    ``FileStreamSink``.
"""

from __future__ import annotations

from ._sink import FileStreamSinkConnector, FileStreamSinkTask
from ._source import FileStreamSourceConnector, FileStreamSourceTask

__all__ = [
    "FileStreamSinkConnector",
    "FileStreamSinkTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
]
