"""Signed requests between the workers of a group (KIP-507, ``connect.protocol=sessioned``).

The leader generates a session key and writes it to the config topic as Kafka's
``KafkaConfigBackingStore`` does (key ``session-key``, value
``{"key": <base64>, "algorithm": …, "creation-timestamp": <ms>}``), so a config topic
written by Java workers or by kconnect workers is read by both. Every worker reads it; a
request one worker sends to another's internal endpoint carries an HMAC of its body under
that key in ``X-Connect-Authorization`` (base64) and the MAC's name in
``X-Connect-Request-Signature-Algorithm``, and the receiver refuses a request whose
signature is missing, made with an algorithm it does not accept, or wrong.

The session key is a secret: it is never logged and never part of a REST body or an error.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect_runtime.config import key_bytes, mac_hash
from kconnect_runtime.storage import BadRequestError, ForbiddenError

from ._forwarding import NotReadyError

__all__ = [
    "SESSION_KEY_KEY",
    "SIGNATURE_ALGORITHM_HEADER",
    "SIGNATURE_HEADER",
    "SessionKey",
    "SigningSettings",
    "decode_session_key",
    "generate_key",
    "has_signature",
    "key_matches",
    "session_key_value",
    "signature_headers",
    "verify_request",
]

SESSION_KEY_KEY = "session-key"  # Kafka's KafkaConfigBackingStore.SESSION_KEY_KEY
SIGNATURE_HEADER = "X-Connect-Authorization"
SIGNATURE_ALGORITHM_HEADER = "X-Connect-Request-Signature-Algorithm"


@dataclass(frozen=True)
class SigningSettings:
    """The ``inter.worker.*`` settings of a distributed worker."""

    key_ttl_ms: int = 3600000
    key_algorithm: str = "HmacSHA256"
    key_size: int | None = None
    signature_algorithm: str = "HmacSHA256"
    verification_algorithms: list[str] = field(default_factory=lambda: ["HmacSHA256"])


def has_signature(headers: Mapping[str, str]) -> bool:
    """Whether a request carries either signature header (then it is always verified)."""
    return any(h.lower() in headers for h in (SIGNATURE_HEADER, SIGNATURE_ALGORITHM_HEADER))


@dataclass(frozen=True)
class SessionKey:
    """The group's current key: its bytes (never shown), algorithm and creation time."""

    key: bytes = field(repr=False)
    algorithm: str
    creation_timestamp: int

    def __str__(self) -> str:
        return f"SessionKey(algorithm={self.algorithm}, created={self.creation_timestamp})"


def generate_key(algorithm: str, key_size: int | None, now_ms: int) -> SessionKey:
    """A fresh random key, as a JVM KeyGenerator of ``algorithm`` makes it."""
    return SessionKey(secrets.token_bytes(key_bytes(algorithm, key_size)), algorithm, now_ms)


def key_matches(key: SessionKey, algorithm: str, key_size: int | None) -> bool:
    """Whether ``key`` is what this worker's generator makes (otherwise the leader replaces
    it, as Kafka's leader does after a change of algorithm or size)."""
    return key.algorithm == algorithm and len(key.key) == key_bytes(algorithm, key_size)


def session_key_value(key: SessionKey) -> dict[str, Any]:
    """The config topic record's value, in the field order of Kafka's ``SESSION_KEY_V0``."""
    return {
        "key": base64.b64encode(key.key).decode("ascii"),
        "algorithm": key.algorithm,
        "creation-timestamp": key.creation_timestamp,
    }


def decode_session_key(raw: bytes | None) -> tuple[SessionKey | None, str | None]:
    """A session key record read from the config topic: (key, None), or (None, why it is
    ignored) in Kafka's words."""
    if raw is None:
        return None, "Ignoring session key because it is unexpectedly null"
    try:
        value = json.loads(raw)
    except ValueError:
        return None, "Ignoring session key because the value is not valid JSON"
    if not isinstance(value, Mapping):
        return None, "Ignoring session key because the value is not a Map"
    encoded, algorithm, created = (
        value.get("key"),
        value.get("algorithm"),
        value.get("creation-timestamp"),
    )
    if not isinstance(encoded, str):
        return None, "Invalid data for session key 'key' field should be a String"
    if not isinstance(algorithm, str):
        return None, "Invalid data for session key 'algorithm' field should be a String"
    if not isinstance(created, int) or isinstance(created, bool):
        return None, "Invalid data for session key 'creation-timestamp' field should be a long"
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None, "Invalid data for session key 'key' field: not base64"
    return SessionKey(key, algorithm, created), None


def _mac(key: bytes, algorithm: str, body: bytes) -> bytes:
    digest = mac_hash(algorithm)
    if digest is None:
        raise BadRequestError(f"Algorithm {algorithm} not available")
    return hmac.new(key, body, getattr(hashlib, digest)).digest()


def signature_headers(key: SessionKey, algorithm: str, body: bytes) -> dict[str, str]:
    """The headers that sign ``body`` (the exact bytes sent) with the session key."""
    signature = base64.b64encode(_mac(key.key, algorithm, body)).decode("ascii")
    return {SIGNATURE_HEADER: signature, SIGNATURE_ALGORITHM_HEADER: algorithm}


def verify_request(
    headers: Mapping[str, str],
    body: bytes,
    *,
    key: SessionKey | None,
    verification_algorithms: list[str],
) -> None:
    """Kafka's ``requestNotSignedProperly``: raise the error (400, 403 or 503) an unsigned
    or wrongly signed internal request is answered with."""
    algorithm = headers.get(SIGNATURE_ALGORITHM_HEADER.lower())
    encoded = headers.get(SIGNATURE_HEADER.lower())
    if algorithm is None or encoded is None:
        raise BadRequestError("Internal request missing required signature")
    if mac_hash(algorithm) is None:
        raise BadRequestError(f"Algorithm {algorithm} not available")
    try:
        signature = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BadRequestError(str(exc)) from None
    if algorithm not in verification_algorithms:
        raise BadRequestError(
            f"This worker does not support the '{algorithm}' key signing algorithm used by "
            f"other workers. This worker is currently configured to use: "
            f"[{', '.join(verification_algorithms)}]. Check that all workers' configuration "
            "files permit the same set of signature algorithms, and correct any "
            "misconfigured worker and restart it."
        )
    if key is None:
        raise NotReadyError(
            "This worker is still starting up and has not been able to read a session key "
            "from the config topic yet"
        )
    if not hmac.compare_digest(_mac(key.key, algorithm, body), signature):
        raise ForbiddenError("Internal request contained invalid signature.")
