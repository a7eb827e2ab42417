"""kconnect's differential suite: Apache Kafka Connect's Java originals and kconnect, run on
the same generated inputs and compared byte for byte.

Not a published package: the helpers the tests in ``compat/tests`` share. ``wire`` is the
JSON encoding both sides speak, ``java`` runs the Java harness (``compat/java``), ``python``
runs the same cases through kconnect, ``generate`` makes the cases, ``compare`` finds and
explains the differences and ``intended`` reads the list of differences that are on purpose.
"""

from __future__ import annotations
