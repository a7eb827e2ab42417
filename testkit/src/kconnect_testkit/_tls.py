"""A test certificate authority and the key and trust stores Kafka users have, made on the spot.

:class:`TestCertificates` issues a CA, a broker certificate for ``localhost``/``127.0.0.1``
and a client certificate, and writes them in every form a Java client config names: JKS and
PKCS12 stores (made with the JDK's ``keytool``, as operators make them) and PEM files.
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

__all__ = ["TestCertificates"]


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kconnect-testkit"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _legacy_pkcs12(password: str) -> serialization.KeySerializationEncryption:
    # The encryption every JDK reads (3DES/SHA1), as keytool wrote PKCS12 for years.
    return (
        serialization.PrivateFormat.PKCS12.encryption_builder()
        .kdf_rounds(50000)
        .key_cert_algorithm(pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC)
        .hmac_hash(hashes.SHA1())
        .build(password.encode())
    )


@dataclass(frozen=True)
class _Issued:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate


class TestCertificates:
    """A CA with a broker and a client certificate, in JKS, PKCS12 and PEM stores.

    Every store is protected by :attr:`store_password`; the private keys of the client's
    JKS keystore and PEM key by :attr:`key_password` (Java's ``ssl.key.password``), a
    different one, so that a test shows both are used.

    Attributes:
        directory: where the files are.
        ca_pem: the CA certificate (PEM).
        truststore_jks, truststore_p12: the CA in a JKS and a PKCS12 truststore.
        broker_keystore_p12: the broker's key and certificate chain (PKCS12).
        client_keystore_jks, client_keystore_p12: the client's key and chain.
        client_key_pem: the client's key, encrypted PKCS#8 PEM (with :attr:`key_password`).
        client_chain_pem: the client's certificate chain (PEM).
        client_principal: the client certificate's subject, as Kafka names its principal.
    """

    __test__ = False  # not a pytest test class, whatever its name says

    store_password = "store-secret"
    key_password = "key-secret"

    def __init__(self, directory: Path, *, client: str = "connect-client") -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.UTC)
        self._start = now - datetime.timedelta(days=1)
        self._end = now + datetime.timedelta(days=30)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca = _Issued(ca_key, self._certificate("kconnect test CA", ca_key, None, ca=True))
        self.broker = self._issue("localhost", server=True)
        self.client = self._issue(client, server=False)
        self.client_principal = f"CN={client},O=kconnect-testkit"
        d = self.directory
        self.ca_pem = d / "ca.pem"
        self.ca_pem.write_bytes(self.ca.cert.public_bytes(serialization.Encoding.PEM))
        self.broker_keystore_p12 = d / "broker.keystore.p12"
        self.broker_keystore_p12.write_bytes(self._pkcs12("broker", self.broker))
        self.client_keystore_p12 = d / "client.keystore.p12"
        self.client_keystore_p12.write_bytes(self._pkcs12("client", self.client))
        self.client_key_pem = d / "client.key.pem"
        self.client_key_pem.write_bytes(
            self.client.key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.BestAvailableEncryption(self.key_password.encode()),
            )
        )
        self.client_chain_pem = d / "client.chain.pem"
        self.client_chain_pem.write_bytes(
            self.client.cert.public_bytes(serialization.Encoding.PEM)
            + self.ca.cert.public_bytes(serialization.Encoding.PEM)
        )

    # The JDK's keytool takes about a second a store: made on first use only.
    @functools.cached_property
    def truststore_jks(self) -> Path:
        """The CA in a JKS truststore (keytool's ``-storetype JKS``)."""
        path = self.directory / "truststore.jks"
        self._keytool("-importcert", "-noprompt", "-alias", "ca", "-file", str(self.ca_pem),
                      "-keystore", str(path), "-storetype", "JKS",
                      "-storepass", self.store_password)  # fmt: skip
        return path

    @functools.cached_property
    def truststore_p12(self) -> Path:
        """The CA in a PKCS12 truststore, as keytool writes one."""
        path = self.directory / "truststore.p12"
        self._keytool("-importcert", "-noprompt", "-alias", "ca", "-file", str(self.ca_pem),
                      "-keystore", str(path), "-storetype", "PKCS12",
                      "-storepass", self.store_password)  # fmt: skip
        return path

    @functools.cached_property
    def client_keystore_jks(self) -> Path:
        """The client's key (protected by :attr:`key_password`) and chain in a JKS keystore."""
        path = self.directory / "client.keystore.jks"
        self._keytool("-importkeystore", "-noprompt",
                      "-srckeystore", str(self.client_keystore_p12), "-srcstoretype", "PKCS12",
                      "-srcstorepass", self.store_password, "-srcalias", "client",
                      "-destkeystore", str(path), "-deststoretype", "JKS",
                      "-deststorepass", self.store_password,
                      "-destkeypass", self.key_password)  # fmt: skip
        return path

    def _certificate(
        self,
        subject: str,
        key: ec.EllipticCurvePrivateKey,
        issuer: _Issued | None,
        *,
        ca: bool = False,
        server: bool = False,
    ) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(subject))
            .issuer_name(_name("kconnect test CA") if issuer is None else issuer.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self._start)
            .not_valid_after(self._end)
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [
                        x509.DNSName("localhost"),
                        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    ]
                ),
                critical=False,
            )
        return builder.sign(key if issuer is None else issuer.key, hashes.SHA256())

    def _issue(self, subject: str, *, server: bool) -> _Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        return _Issued(key, self._certificate(subject, key, self.ca, server=server))

    def _pkcs12(self, alias: str, issued: _Issued) -> bytes:
        return pkcs12.serialize_key_and_certificates(
            alias.encode(),
            issued.key,
            issued.cert,
            [self.ca.cert],
            _legacy_pkcs12(self.store_password),
        )

    def _keytool(self, *args: str) -> None:
        keytool = shutil.which("keytool")
        if keytool is None:
            raise RuntimeError(
                "keytool not found on PATH: install Java 17 (apt-get install openjdk-17-jdk-headless)"
            )
        done = subprocess.run([keytool, *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"keytool {args[0]} failed: {done.stdout}{done.stderr}")
