"""A predicate module that starts a background thread when imported."""

from __future__ import annotations

import threading
import time

from kconnect_sdk import ConfigDef, ConnectRecord, Predicate

threading.Thread(target=time.sleep, args=(3600,), name="broken-heartbeat", daemon=True).start()


class ThreadOnImportPredicate(Predicate[ConnectRecord]):
    def config(self) -> ConfigDef:
        return ConfigDef()

    def test(self, record: ConnectRecord) -> bool:
        return True
