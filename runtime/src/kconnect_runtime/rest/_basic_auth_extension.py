"""Kafka's ``BasicAuthSecurityRestExtension``: HTTP basic auth from a JAAS file.

Configured as Kafka's worker is::

    # worker.properties
    rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension

    # environment
    export KAFKA_OPTS="-Djava.security.auth.login.config=/tmp/connect-jas.conf"

The JAAS file's ``KafkaConnect`` section names
``org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule`` with a
``file="..."`` of ``user=password`` lines. A request without matching credentials is
answered as Kafka's ``JaasBasicAuthFilter`` answers it: 401, the text ``User cannot access
the resource.`` (sent as ``application/json``, as Jersey does), no ``WWW-Authenticate``
header; a malformed base64 value is a 500 with Java's decoder message. As in Kafka, only a
request for a path and method the API serves is checked (others answer 404 or 405), and
Kafka's internal requests (a follower's ``POST /connectors/{name}/tasks`` and
``PUT /connectors/{name}/fence``) pass unchecked: Kafka authenticates those by their
KIP-507 signature instead.

Where Kafka would only fail each request (no JAAS file, no ``KafkaConnect`` section, a
credentials file that cannot be read), kconnect refuses to start instead, naming the
problem: a worker that turns every caller away protects nothing better and helps nobody.
"""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kconnect_sdk import (
    ConfigError,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RestRequest,
    RestResponse,
    parse_properties,
)
from kconnect_sdk.kafka_clients import JAAS_LOGIN_CONFIG, jaas_file_from_kafka_opts, read_jaas_file

__all__ = ["BasicAuthSecurityRestExtension"]

log = logging.getLogger("kconnect.rest.basic_auth")

LOGIN_SECTION = "KafkaConnect"
PROPERTY_FILE_LOGIN_MODULE = (
    "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
)
UNAUTHORIZED = "User cannot access the resource."
# Kafka's JaasBasicAuthFilter lets these through: workers send them to one another.
_INTERNAL_REQUESTS = (
    ("POST", re.compile(r"/?connectors/([^/]+)/tasks/?")),
    ("PUT", re.compile(r"/?connectors/[^/]+/fence/?")),
)
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class BasicAuthSecurityRestExtension(ConnectRestExtension):
    """HTTP basic authentication of every REST request against JAAS ``PropertyFileLoginModule``
    credential files (Kafka's reference REST extension; plain-text passwords, so use it with
    an https:// listener)."""

    def __init__(self) -> None:
        # One dict per PropertyFileLoginModule entry; a request passes if any accepts it.
        self._credentials: list[dict[str, str]] = []

    def configure(self, configs: Mapping[str, Any]) -> None:
        jaas_file = jaas_file_from_kafka_opts()
        if jaas_file is None:
            raise ConfigError(
                f"BasicAuthSecurityRestExtension needs a JAAS file: set KAFKA_OPTS="
                f'"-D{JAAS_LOGIN_CONFIG}=<file>" in the worker\'s environment, the file holding a '
                f"{LOGIN_SECTION} section (see docs/security.md)",
                name=JAAS_LOGIN_CONFIG,
            )
        path = str(jaas_file)
        sections = read_jaas_file(path)
        entries = sections.get(LOGIN_SECTION)
        if not entries:
            raise ConfigError(
                f"JAAS file {path!r} has no {LOGIN_SECTION} section (it has: "
                f"{', '.join(sections) or 'none'}); add one naming {PROPERTY_FILE_LOGIN_MODULE}",
                name=JAAS_LOGIN_CONFIG,
            )
        for entry in entries:
            if entry.class_name != PROPERTY_FILE_LOGIN_MODULE:
                raise ConfigError(
                    f"JAAS file {path!r}: login module {entry.class_name} is a Java class kconnect "
                    f"cannot run; use {PROPERTY_FILE_LOGIN_MODULE}, or write a Python REST "
                    "extension for other credential stores",
                    name=JAAS_LOGIN_CONFIG,
                )
            self._credentials.append(_load_credentials(path, entry.options.get("file")))

    def register(self, context: ConnectRestExtensionContext) -> None:
        context.add_request_filter(self.authenticate)

    def authenticate(self, request: RestRequest) -> RestResponse | str | None:
        """None or the user name when the request may pass, else Kafka's 401."""
        for method, path in _INTERNAL_REQUESTS:
            if request.method == method and path.fullmatch(request.path):
                return None
        user, password = _credentials(request.header("authorization"))
        for users in self._credentials:
            # Kafka's PropertyFileLoginModule lets everyone in when its file is empty.
            if not users:
                return user
            expected = users.get(user) if user is not None else None
            if (
                expected is not None
                and password is not None
                and hmac.compare_digest(expected.encode(), password.encode())
            ):
                return user
        # JAAS ignores a module whose login() answers false rather than failing, so the
        # request is refused only when no module accepted it.
        return RestResponse(401, UNAUTHORIZED, media_type="application/json")


def _load_credentials(jaas_path: str, path: str | None) -> dict[str, str]:
    if not path or not path.strip():
        raise ConfigError(
            f"JAAS file {jaas_path!r}: {PROPERTY_FILE_LOGIN_MODULE} needs its file option "
            '(file="/path/to/credentials.properties")',
            name=JAAS_LOGIN_CONFIG,
        )
    try:
        text = Path(path).read_text(encoding="latin-1")  # Properties.load(InputStream)
    except OSError as exc:
        raise ConfigError(
            f"credentials file {path!r} (named in JAAS file {jaas_path!r}) cannot be read: "
            f"{exc.strerror or exc}; create it with one user=password line per user",
            name=JAAS_LOGIN_CONFIG,
        ) from None
    users = parse_properties(text, source=path)
    if not users:
        log.warning(
            "Credential properties file '%s' is empty; all requests will be permitted", path
        )
    return users


def _credentials(header: str | None) -> tuple[str | None, str | None]:
    """User and password of an ``Authorization`` header, as Kafka's BasicAuthCredentials reads
    it: (None, None) unless it is ``Basic <base64 of user:password>`` with a non-empty user.

    Raises:
        ValueError: with Java's ``Base64.Decoder`` message when the base64 is malformed (a
            500, as Kafka answers).
    """
    if header is None:
        return None, None
    space = header.find(" ")
    if space <= 0 or header[:space].lower() != "basic":
        return None, None
    decoded = _java_base64_decode(header[space + 1 :]).decode("utf-8", errors="replace")
    colon = decoded.find(":")
    if colon <= 0:
        return None, None
    return decoded[:colon], decoded[colon + 1 :]


def _java_base64_decode(text: str) -> bytes:
    """``Base64.getDecoder().decode(text)``: padding optional, anything outside the alphabet
    an error worded as Java words it."""
    data = text.encode("latin-1", errors="replace")
    if len(data) == 1:
        raise ValueError("Input byte[] should at least have 2 bytes for base64 bytes")
    bits = 0
    nbits = 0
    out = bytearray()
    for index, byte in enumerate(data):
        if byte == ord("="):
            # Padding ends the data: it must complete the last unit, and nothing may follow.
            if (nbits, data[index:]) not in ((12, b"=="), (18, b"=")):
                raise ValueError("Input byte array has wrong 4-byte ending unit")
            break
        value = _BASE64.find(chr(byte))
        if value < 0:
            signed = byte - 256 if byte > 127 else byte
            raise ValueError(f"Illegal base64 character {signed:x}")
        bits = (bits << 6) | value
        nbits += 6
        if nbits == 24:
            out += bits.to_bytes(3, "big")
            bits = nbits = 0
    if nbits == 6:
        raise ValueError("Last unit does not have enough valid bits")
    if nbits == 12:
        out.append(bits >> 4)
    elif nbits == 18:
        out += (bits >> 2).to_bytes(2, "big")
    return bytes(out)
