"""The ``inter.worker.*`` worker keys (KIP-507): which MAC and key generator names a worker
accepts, checked with Kafka's ``DistributedConfig`` messages."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import ConfigError

__all__ = [
    "canonical_mac",
    "check_key_generator",
    "check_signature_in_verification",
    "key_bytes",
    "mac_hash",
    "validate_key_algorithm",
    "validate_signature_algorithm",
    "validate_verification_algorithms",
]

# The JVM's MAC names (looked up case-insensitively, as the JVM does) and the hash each
# uses; a KeyGenerator of the same name makes keys of the JVM's default size (bytes).
_MACS: dict[str, str] = {
    "HmacMD5": "md5",
    "HmacSHA1": "sha1",
    "HmacSHA224": "sha224",
    "HmacSHA256": "sha256",
    "HmacSHA384": "sha384",
    "HmacSHA512": "sha512",
}
_DEFAULT_KEY_BYTES: dict[str, int] = {
    "HmacMD5": 64,
    "HmacSHA1": 64,
    "HmacSHA224": 28,
    "HmacSHA256": 32,
    "HmacSHA384": 48,
    "HmacSHA512": 64,
}
_BY_LOWER = {name.lower(): name for name in _MACS}


def canonical_mac(algorithm: str) -> str | None:
    """The JVM's name of a MAC this worker computes (matched case-insensitively), or None."""
    return _BY_LOWER.get(algorithm.strip().lower())


def mac_hash(algorithm: str) -> str | None:
    """The :mod:`hashlib` name of the hash a MAC uses, or None when it is not supported."""
    canonical = canonical_mac(algorithm)
    return None if canonical is None else _MACS[canonical]


def key_bytes(algorithm: str, key_size: int | None) -> int:
    """How long a generated key is: ``inter.worker.key.size`` (bits) rounded up to bytes,
    or the JVM's default size for the algorithm."""
    if key_size is not None:
        return (key_size + 7) // 8
    return _DEFAULT_KEY_BYTES[canonical_mac(algorithm) or "HmacSHA256"]


def _unsupported(name: str, value: object) -> ConfigError:
    shown = "[" + ", ".join(value) + "]" if isinstance(value, list) else value
    return ConfigError(
        f"Invalid value {shown} for configuration {name}: the algorithm is not supported by "
        f"this worker; the supported algorithms are: [{', '.join(sorted(_MACS))}]",
        name=name,
    )


def validate_key_algorithm(name: str, value: Any) -> None:
    """``inter.worker.key.generation.algorithm``: a key generator this worker has."""
    if canonical_mac(str(value)) is None:
        raise _unsupported(name, value)


def validate_signature_algorithm(name: str, value: Any) -> None:
    """``inter.worker.signature.algorithm``: a MAC this worker computes."""
    if canonical_mac(str(value)) is None:
        raise _unsupported(name, value)


def validate_verification_algorithms(name: str, value: Any) -> None:
    """``inter.worker.verification.algorithms``: one or more MACs this worker computes."""
    algorithms = list(value or [])
    if not algorithms:
        raise ConfigError(
            f"Invalid value [] for configuration {name}: "
            "At least one signature verification algorithm must be provided",
            name=name,
        )
    for algorithm in algorithms:
        if canonical_mac(str(algorithm)) is None:
            raise _unsupported(name, algorithm)


def check_key_generator(algorithm: str, key_size: int | None) -> None:
    """Kafka's ``getInternalRequestKeyGenerator`` check of the key size (bits)."""
    if key_size is not None and key_size < 40:
        raise ConfigError(
            f"Unable to create key generator with algorithm {algorithm} and key size "
            f"{key_size}: Key length must be at least 40 bits",
            name="inter.worker.key.size",
        )


def check_signature_in_verification(signature: str, verification: list[str]) -> None:
    """As Kafka: the algorithm a worker signs with is one it accepts."""
    if signature not in verification:
        raise ConfigError(
            f"Invalid value {signature} for configuration inter.worker.signature.algorithm: "
            "Signature algorithm must be present in inter.worker.verification.algorithms list",
            name="inter.worker.signature.algorithm",
        )
