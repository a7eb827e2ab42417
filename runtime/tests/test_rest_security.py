"""REST API security: HTTP basic authentication and TLS listeners."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from kconnect_runtime import Standalone
from kconnect_sdk import ConfigError
from runtime_harness import standalone, worker_props

pytestmark = pytest.mark.integration


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_basic_auth_over_https(kafka: str, tmp_path: Path) -> None:
    users = tmp_path / "users.properties"
    users.write_text("admin: s3cret,admin\nviewer: look\n")
    cert, key = _self_signed(tmp_path)
    props = worker_props(
        tmp_path,
        kafka,
        listeners="https://127.0.0.1:0",
        **{
            "rest.basic.auth.user.file": str(users),
            "listeners.https.ssl.certificate.location": str(cert),
            "listeners.https.ssl.key.location": str(key),
        },
    )
    with standalone(props) as app:
        assert app.rest is not None and app.rest.url.startswith("https://")
        trusted = ssl.create_default_context(cafile=str(cert))
        with httpx.Client(base_url=app.rest.url, verify=trusted) as api:
            anonymous = api.get("/connectors")
            assert anonymous.status_code == 401
            assert anonymous.json()["error_code"] == 401
            wrong = api.get("/connectors", auth=("admin", "guess"))
            assert wrong.status_code == 401 and "User not authorized" in wrong.json()["message"]
            assert api.get("/connectors", auth=("admin", "s3cret")).json() == []
            assert api.get("/", auth=("viewer", "look")).status_code == 200
        with pytest.raises(httpx.ConnectError):  # an untrusted certificate is refused
            httpx.get(f"{app.rest.url}/", auth=("admin", "s3cret"))


def test_https_without_certificate_is_a_config_error(kafka: str, tmp_path: Path) -> None:
    app = Standalone(worker_props(tmp_path, kafka, listeners="https://127.0.0.1:0"))
    with pytest.raises(ConfigError, match=r"listeners\.https\.ssl\.certificate\.location"):
        app.start()


def test_missing_user_file_is_a_config_error(kafka: str, tmp_path: Path) -> None:
    props = worker_props(
        tmp_path,
        kafka,
        listeners="http://127.0.0.1:0",
        **{"rest.basic.auth.user.file": str(tmp_path / "nope.properties")},
    )
    with pytest.raises(ConfigError, match=r"rest\.basic\.auth\.user\.file"):
        Standalone(props).start()
