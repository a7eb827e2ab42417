"""S3 I/O: the client, retries of transient failures, and multipart output streams."""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import zlib
from collections.abc import Callable
from typing import Any, Final, TypeVar

import boto3
import botocore.config
import botocore.exceptions
import botocore.loaders
import botocore.session
from kconnect_sdk import ConnectError, RetriableError
from kconnect_sdk.java import retry_with_backoff

from ._config import S3SinkSettings

__all__ = ["S3OutputStream", "S3Storage", "TransientS3Error"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_TRANSIENT_CODES: Final = frozenset(
    {
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "RequestTimeout",
        "RequestTimeTooSkewed",
        "InternalError",
        "ServiceUnavailable",
        "RequestLimitExceeded",
    }
)
# What a Java GZIPOutputStream writes before the deflate data: magic, CM=8, no flags,
# mtime 0, XFL 0, OS 255 (unknown, since JDK 16).
_GZIP_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


class TransientS3Error(RetriableError):
    """An S3 request still failed transiently after ``s3.part.retries`` retries."""


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, botocore.exceptions.HTTPClientError | botocore.exceptions.ConnectionError):
        return True
    if isinstance(exc, botocore.exceptions.ClientError):
        meta = exc.response.get("ResponseMetadata", {})
        status = int(meta.get("HTTPStatusCode", 0) or 0)
        code = str(exc.response.get("Error", {}).get("Code", ""))
        return status >= 500 or status == 429 or code in _TRANSIENT_CODES
    return isinstance(exc, botocore.exceptions.ResponseStreamingError)


def _error_code(exc: BaseException) -> str:
    if isinstance(exc, botocore.exceptions.ClientError):
        return str(exc.response.get("Error", {}).get("Code", ""))
    return ""


def _proxy_url(url: str, user: str, password: str | None) -> str:
    """``s3.proxy.url`` with ``s3.proxy.user``/``s3.proxy.password`` as its user info."""
    if not url or not user:
        return url
    from urllib.parse import quote, urlsplit, urlunsplit

    parts = urlsplit(url if "://" in url else f"http://{url}")
    auth = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{auth}@{host}"))


@functools.cache
def _shared_loader() -> botocore.loaders.Loader:
    return botocore.loaders.create_loader()


def _new_session() -> boto3.session.Session:
    """A fresh session (credentials are resolved anew for each task) that shares the parsed
    service models: loading them is most of a client's cost, about half a second."""
    core = botocore.session.get_session()
    core.register_component("data_loader", _shared_loader())
    return boto3.session.Session(botocore_session=core)


class S3Storage:
    """One boto3 client per task, and the retry policy for every request it makes."""

    def __init__(self, settings: S3SinkSettings, connector: str = "S3 sink") -> None:
        self.settings = settings
        self.bucket = settings.bucket
        self.connector = connector
        raw = settings.raw
        key_id = str(raw["aws.access.key.id"] or "")
        secret = settings.secret("aws.secret.access.key")
        proxy = _proxy_url(
            str(raw["s3.proxy.url"] or ""),
            str(raw["s3.proxy.user"] or ""),
            settings.secret("s3.proxy.password"),
        )
        config = botocore.config.Config(
            region_name=str(raw["s3.region"]),
            # Retries are ours (s3.part.retries with s3.retry.backoff.ms), so that every
            # request of a multipart upload is retried the same, countable way.
            retries={"total_max_attempts": 1},
            s3={"addressing_style": "path" if raw["s3.path.style.access.enabled"] else "auto"},
            connect_timeout=10,
            read_timeout=60,
            proxies={"http": proxy, "https": proxy} if proxy else None,
            max_pool_connections=16,
        )
        kwargs: dict[str, Any] = {"config": config}
        url = str(raw["store.url"] or "").strip()
        if url:
            kwargs["endpoint_url"] = url if "://" in url else f"https://{url}"
        if key_id and secret:
            kwargs["aws_access_key_id"] = key_id
            kwargs["aws_secret_access_key"] = secret
        self.client: Any = _new_session().client("s3", **kwargs)

    def call(self, what: str, fn: Callable[..., T], **kwargs: Any) -> T:
        """``fn(**kwargs)``, retried with exponential backoff while it fails transiently.

        Raises:
            TransientS3Error: still failing after ``s3.part.retries`` retries.
            ConnectError: a permanent failure (access denied, no such bucket, ...).
        """
        retries = self.settings.part_retries

        def retrying(attempt: int, exc: BaseException, delay: float) -> None:
            log.warning(
                "%s: %s on bucket %r failed (%s); retry %d of %d in %.3f s",
                self.connector,
                what,
                self.bucket,
                exc,
                attempt,
                retries,
                delay,
            )

        try:
            return retry_with_backoff(
                lambda: fn(**kwargs),
                attempts=retries + 1,
                backoff_s=self.settings.s3_retry_backoff_ms / 1000,
                multiplier=2.0,
                retry_if=_is_transient,
                on_retry=retrying,
            )
        except Exception as exc:
            if not _is_transient(exc):
                raise self._permanent(what, exc) from exc
            raise TransientS3Error(
                f"{self.connector}: {what} on bucket {self.bucket!r} still failing "
                f"after {retries} retries: {exc}"
            ) from exc

    def _permanent(self, what: str, exc: Exception) -> ConnectError:
        code = _error_code(exc)
        hint = ""
        if code in ("NoSuchBucket",):
            hint = "; create the bucket or fix 's3.bucket.name'"
        elif code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403"):
            hint = (
                "; check the credentials ('aws.access.key.id'/'aws.secret.access.key' or the "
                "default provider chain) and the bucket policy"
            )
        return ConnectError(
            f"{self.connector}: {what} on bucket {self.bucket!r} failed: {exc}{hint}"
        )

    def check_bucket(self) -> None:
        """Fail fast, naming the bucket, when it is missing or the credentials are wrong."""
        try:
            self.call("HeadBucket", self.client.head_bucket, Bucket=self.bucket)
        except ConnectError as exc:
            cause = exc.__cause__
            code = _error_code(cause) if cause is not None else ""
            if code in ("404", "NoSuchBucket"):
                raise ConnectError(
                    f"{self.connector}: Non-existent S3 bucket: {self.bucket}; create it or fix "
                    "'s3.bucket.name'"
                ) from cause
            if code in ("403", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
                raise ConnectError(
                    f"{self.connector}: access to S3 bucket {self.bucket!r} denied; check "
                    "'aws.access.key.id'/'aws.secret.access.key' (or the default credentials) "
                    "and the bucket policy"
                ) from cause
            raise

    def create(self, key: str) -> S3OutputStream:
        return S3OutputStream(self, key)

    def close(self) -> None:
        close = getattr(self.client, "close", None)
        if close is not None:
            close()


class _Gzip:
    """Java ``GZIPOutputStream`` bytes: raw deflate, a fixed header, CRC-32 and size."""

    def __init__(self, level: int) -> None:
        self._deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS, 8)
        self._crc = 0
        self._size = 0
        self._started = False

    def compress(self, data: bytes) -> bytes:
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        out = self._deflate.compress(data)
        if not self._started:
            self._started = True
            return _GZIP_HEADER + out
        return out

    def finish(self) -> bytes:
        head = b"" if self._started else _GZIP_HEADER
        self._started = True
        tail = self._crc.to_bytes(4, "little") + (self._size & 0xFFFFFFFF).to_bytes(4, "little")
        return head + self._deflate.flush() + tail


class S3OutputStream:
    """One object written as an S3 multipart upload, parts of exactly ``s3.part.size``.

    The buffer grows with the data written (it is not a preallocated part-sized array), so
    a file holding a few records costs a few records' bytes. Nothing is visible in the
    bucket until :meth:`commit` completes the upload; :meth:`abort` (or a crash) leaves no
    object behind.
    """

    def __init__(self, storage: S3Storage, key: str, *, compress: bool = False) -> None:
        self.storage = storage
        self.key = key
        self.part_size = storage.settings.part_size
        self._buffer = bytearray()
        self._parts: list[dict[str, Any]] = []
        self._upload_id: str | None = None
        self._gzip = (
            _Gzip(storage.settings.compression_level)
            if compress and storage.settings.compression == "gzip"
            else None
        )
        self.closed = False
        self.position = 0

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.position += len(data)
        if self._gzip is not None:
            data = self._gzip.compress(bytes(data))
        self._buffer += data
        while len(self._buffer) >= self.part_size:
            self._upload_part(bytes(self._buffer[: self.part_size]))
            del self._buffer[: self.part_size]

    def _extra(self) -> dict[str, Any]:
        s = self.storage.settings
        raw = s.raw
        extra: dict[str, Any] = {}
        ssea = str(raw["s3.ssea.name"] or "")
        customer_key = s.secret("s3.sse.customer.key")
        if ssea.upper() == "AES256" and customer_key:
            extra["SSECustomerAlgorithm"] = "AES256"
            extra["SSECustomerKey"] = base64.b64decode(customer_key)
        return extra

    def _create(self) -> str:
        s = self.storage.settings
        raw = s.raw
        kwargs: dict[str, Any] = {"Bucket": self.storage.bucket, "Key": self.key}
        ssea = str(raw["s3.ssea.name"] or "")
        kms = str(raw["s3.sse.kms.key.id"] or "")
        if ssea.upper() == "AES256" and not s.secret("s3.sse.customer.key"):
            kwargs["ServerSideEncryption"] = "AES256"
        elif ssea == "aws:kms" and kms:
            kwargs["ServerSideEncryption"] = "aws:kms"
            kwargs["SSEKMSKeyId"] = kms
        kwargs.update(self._extra())
        if raw["s3.acl.canned"]:
            kwargs["ACL"] = str(raw["s3.acl.canned"])
        response = self.storage.call(
            "CreateMultipartUpload", self.storage.client.create_multipart_upload, **kwargs
        )
        return str(response["UploadId"])

    def _upload_part(self, body: bytes) -> None:
        try:
            if self._upload_id is None:
                self._upload_id = self._create()
            number = len(self._parts) + 1
            kwargs: dict[str, Any] = {
                "Bucket": self.storage.bucket,
                "Key": self.key,
                "UploadId": self._upload_id,
                "PartNumber": number,
                "Body": body,
            }
            if self.storage.settings.raw["s3.send.digest"]:
                kwargs["ContentMD5"] = base64.b64encode(hashlib.md5(body).digest()).decode()
            kwargs.update(self._extra())
            response = self.storage.call(
                f"UploadPart {number} of {self.key!r}",
                self.storage.client.upload_part,
                **kwargs,
            )
        except Exception:
            self.abort()
            raise
        self._parts.append({"ETag": response["ETag"], "PartNumber": number})

    def commit(self) -> None:
        """Upload what is buffered as the last part and complete the upload."""
        if self.closed:
            return
        try:
            if self._gzip is not None:
                self._buffer += self._gzip.finish()
            if self._buffer or not self._parts:
                self._upload_part(bytes(self._buffer))
            self._buffer = bytearray()
            self._complete()
        except Exception:
            self.abort()
            raise
        self.closed = True

    def _complete(self) -> None:
        assert self._upload_id is not None
        client = self.storage.client
        upload_id = self._upload_id

        def complete(**kwargs: Any) -> Any:
            try:
                return client.complete_multipart_upload(**kwargs)
            except botocore.exceptions.ClientError as exc:
                # A retried Complete whose first attempt did succeed (the reply was lost):
                # the upload is gone and the object is there.
                if _error_code(exc) == "NoSuchUpload" and self._exists():
                    return {}
                raise

        self.storage.call(
            f"CompleteMultipartUpload of {self.key!r}",
            complete,
            Bucket=self.storage.bucket,
            Key=self.key,
            UploadId=upload_id,
            MultipartUpload={"Parts": self._parts},
        )
        self._upload_id = None

    def _exists(self) -> bool:
        try:
            self.storage.client.head_object(Bucket=self.storage.bucket, Key=self.key)
        except botocore.exceptions.ClientError:
            return False
        return True

    def abort(self) -> None:
        """Drop the upload and what is buffered; the object is not created."""
        self.closed = True
        self._buffer = bytearray()
        upload_id, self._upload_id = self._upload_id, None
        if upload_id is None:
            return
        try:
            self.storage.client.abort_multipart_upload(
                Bucket=self.storage.bucket, Key=self.key, UploadId=upload_id
            )
        except Exception as exc:  # best effort, as in Java: a lifecycle rule can purge parts
            log.warning(
                "%s: could not abort the multipart upload of %r (%s); a bucket lifecycle rule "
                "for incomplete uploads cleans such parts",
                self.storage.connector,
                self.key,
                exc,
            )
