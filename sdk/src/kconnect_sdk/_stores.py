"""Java key and trust stores (JKS, JCEKS, PKCS12, PEM) read into PEM text, in memory.

PKCS12 with ``cryptography``; JKS and JCEKS with ``pyjks``. A store's own format decides
how it is read, whatever its declared type: Java's keystores do the same (JKS and PKCS12
files load under either type since Java 9's ``keystore.type.compat``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jks
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

__all__ = ["StoreReadError", "key_and_chain_pem", "pem_private_key", "trusted_certificates_pem"]

_PEM_KEY = re.compile(
    r"-----BEGIN ([A-Z ]*)PRIVATE KEY-----.*?-----END \1PRIVATE KEY-----", re.DOTALL
)
_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_JCEKS_MAGIC = b"\xce\xce\xce\xce"


class StoreReadError(Exception):
    """The store cannot be read; the message says why and never quotes its content."""


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise StoreReadError("no such file") from None
    except OSError as exc:
        raise StoreReadError(f"cannot read the file ({exc.strerror})") from None


def _format(data: bytes, declared: str) -> str:
    if data[:4] in (_JKS_MAGIC, _JCEKS_MAGIC):
        return "JKS"
    if b"-----BEGIN" in data[:4096]:
        return "PEM"
    if data[:1] == b"\x30":
        return "PKCS12"
    raise StoreReadError(f"not a {declared} store (nor JKS, PKCS12 or PEM)")


def _pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _key_pem(key: Any) -> str:
    data: bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return data.decode()


def _load_jks(data: bytes, password: str | None) -> Any:
    try:
        return jks.KeyStore.loads(data, password, try_decrypt_keys=False)
    except jks.util.KeystoreSignatureException:
        raise StoreReadError(
            "keystore password was incorrect (the store's integrity check failed)"
        ) from None
    except Exception as exc:
        raise StoreReadError(f"not a valid JKS store ({type(exc).__name__})") from None


def _load_pkcs12(data: bytes, password: str | None) -> Any:
    try:
        return pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError:
        raise StoreReadError(
            "keystore password was incorrect, or the file is not a PKCS12 store"
        ) from None


def trusted_certificates_pem(path: Path, declared: str, password: str | None) -> str:
    """Every certificate of a trust store, as one PEM bundle."""
    data = _read(path)
    kind = _format(data, declared)
    certs: list[str] = []
    if kind == "PEM":
        try:
            certs = [_pem(c) for c in x509.load_pem_x509_certificates(data)]
        except ValueError:
            raise StoreReadError("holds no PEM certificate") from None
    elif kind == "JKS":
        store = _load_jks(data, password)
        for entry in store.certs.values():
            certs.append(_pem(x509.load_der_x509_certificate(entry.cert)))
        for entry in store.private_keys.values():  # Java trusts a key entry's certificate too
            certs.extend(_pem(x509.load_der_x509_certificate(c[1])) for c in entry.cert_chain[:1])
    else:
        loaded = _load_pkcs12(data, password)
        if loaded.cert is not None:
            certs.append(_pem(loaded.cert.certificate))
        certs.extend(_pem(c.certificate) for c in loaded.additional_certs)
    if not certs:
        raise StoreReadError("holds no certificate")
    return "".join(certs)


def pem_private_key(text: str, password: str | None) -> str:
    """A PEM private key (PKCS#8, encrypted with ``password`` or not), unencrypted."""
    try:
        key = serialization.load_pem_private_key(
            text.encode(), password.encode() if password else None
        )
    except (TypeError, ValueError):
        raise StoreReadError(
            "the private key cannot be read (is ssl.key.password right?)"
        ) from None
    return _key_pem(key)


def key_and_chain_pem(
    path: Path, declared: str, store_password: str | None, key_password: str | None
) -> tuple[str, str]:
    """The private key and its certificate chain of a key store, as PEM texts."""
    data = _read(path)
    kind = _format(data, declared)
    if kind == "PEM":
        block = _PEM_KEY.search(data.decode(errors="replace"))
        if block is None:
            raise StoreReadError("holds no PEM private key")
        key = pem_private_key(block.group(0), key_password)
        try:
            chain = "".join(_pem(c) for c in x509.load_pem_x509_certificates(data))
        except ValueError:
            raise StoreReadError("holds no PEM certificate") from None
        return key, chain
    if kind == "JKS":
        store = _load_jks(data, store_password)
        if not store.private_keys:
            raise StoreReadError("holds no private key entry")
        entry = next(iter(store.private_keys.values()))
        for candidate in (key_password, store_password):
            if candidate is None:
                continue
            try:
                entry.decrypt(candidate)
                break
            except Exception:  # a wrong password: try the other one
                continue
        if not entry.is_decrypted():
            raise StoreReadError("the key cannot be decrypted: is ssl.key.password right?")
        private = serialization.load_der_private_key(entry.pkey_pkcs8, None)
        chain = "".join(_pem(x509.load_der_x509_certificate(c[1])) for c in entry.cert_chain)
        return _key_pem(private), chain
    loaded = None
    for candidate in dict.fromkeys((store_password, key_password)):
        try:
            loaded = _load_pkcs12(data, candidate)
            break
        except StoreReadError:
            continue
    if loaded is None:
        raise StoreReadError("keystore password was incorrect, or the file is not a PKCS12 store")
    if loaded.key is None or loaded.cert is None:
        raise StoreReadError("holds no private key entry")
    chain = _pem(loaded.cert.certificate) + "".join(
        _pem(c.certificate) for c in loaded.additional_certs
    )
    return _key_pem(loaded.key), chain
