"""S3-compatible object stores: the pyarrow filesystem of an ``s3://bucket/path`` warehouse, built
from catalog options with Apache Paimon's names, and the conditional PUT that creates snapshot,
schema and tag files exactly once.

Options (Paimon's ``S3FileIO`` reads every key under the prefixes ``s3.``, ``s3a.`` and ``fs.s3a.``;
pypaimon also reads ``fs.s3.`` and its own ``fs.s3.accessKeyId`` family; all are accepted here):
``endpoint``, ``access-key`` / ``access.key``, ``secret-key`` / ``secret.key``, ``session.token``,
``path.style.access`` / ``path-style-access``, ``endpoint.region`` / ``region``,
``connection.ssl.enabled``. A key not given falls back to the AWS environment variables
(``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_REGION`` / ``AWS_DEFAULT_REGION``), then to the AWS SDK's own chain.

pyarrow's S3 filesystem cannot send ``If-None-Match: *``, so the conditional create is one signed
PUT through botocore (the ``s3`` extra; moto, which the tests use, depends on it anyway). Before a
store is trusted with it, a probe checks once per process that the store refuses a second
conditional PUT of one key: a store that ignores the header would let two writers both win.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow.fs as pafs

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.process_state import ProcessCache, process_cache

SCHEMES = ("s3", "s3a", "s3n")
_PREFIXES = ("s3.", "s3a.", "fs.s3a.", "fs.s3.")
# the option a key of each kind is reported under (Paimon's documented names)
OPT_ENDPOINT = "s3.endpoint"
OPT_ACCESS_KEY = "s3.access-key"
OPT_SECRET_KEY = "s3.secret-key"
OPT_PATH_STYLE = "s3.path.style.access"
OPT_REGION = "s3.region"


def is_s3_uri(uri: str) -> bool:
    return uri.split("://", 1)[0].lower() in SCHEMES and "://" in uri


def _lookup(options: Mapping[str, str], names: tuple[str, ...], extra: tuple[str, ...] = ()) -> str | None:
    lowered = {k.lower(): v for k, v in options.items()}
    for key in extra:
        if lowered.get(key.lower()):
            return lowered[key.lower()]
    for prefix in _PREFIXES:
        for name in names:
            v = lowered.get(prefix + name)
            if v:
                return v
    return None


def _env(*names: str) -> str | None:
    for n in names:
        v = os.environ.get(n)
        if v:
            return v
    return None


def _bool(value: str | None, key: str, default: bool) -> bool:
    if value is None:
        return default
    v = value.strip().lower()
    if v in ("true", "false"):
        return v == "true"
    raise ValidationError(f"Catalog option {key!r} must be true or false, got {value!r}")


def is_storage_option(key: str) -> bool:
    """Whether ``key`` configures the object store (travels with the table to executors)."""
    k = key.lower()
    return any(k.startswith(p) for p in _PREFIXES)


@dataclass(frozen=True)
class S3Settings:
    """Where and how to reach the store; ``None``: the AWS SDK's own default."""

    endpoint: str | None  # with scheme (http:// or https://)
    access_key: str | None
    secret_key: str | None
    session_token: str | None
    region: str | None
    path_style: bool

    @staticmethod
    def of(options: Mapping[str, str]) -> S3Settings:
        endpoint = _lookup(options, ("endpoint",)) or _env("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
        ssl = _bool(_lookup(options, ("connection.ssl.enabled",)), "s3.connection.ssl.enabled", True)
        if endpoint and "://" not in endpoint:
            endpoint = ("https://" if ssl else "http://") + endpoint
        access = _lookup(options, ("access-key", "access.key"), ("fs.s3.accessKeyId",))
        secret = _lookup(options, ("secret-key", "secret.key"), ("fs.s3.accessKeySecret",))
        token = _lookup(options, ("session.token", "session-token"), ("fs.s3.securityToken",))
        if (access is None) != (secret is None):
            missing = OPT_SECRET_KEY if secret is None else OPT_ACCESS_KEY
            raise ValidationError(f"Catalog option {missing!r} is required with {OPT_ACCESS_KEY!r} / {OPT_SECRET_KEY!r}")
        if access is None:
            access, secret = _env("AWS_ACCESS_KEY_ID"), _env("AWS_SECRET_ACCESS_KEY")
            token = token or _env("AWS_SESSION_TOKEN")
        region = _lookup(options, ("endpoint.region", "region")) or _env("AWS_REGION", "AWS_DEFAULT_REGION")
        path_style = _bool(_lookup(options, ("path.style.access", "path-style-access")), OPT_PATH_STYLE, False)
        return S3Settings(endpoint, access, secret, token, region, path_style)

    def filesystem(self) -> pafs.S3FileSystem:
        kwargs: dict[str, Any] = {
            "access_key": self.access_key,
            "secret_key": self.secret_key,
            "session_token": self.session_token,
            "region": self.region or "us-east-1",
            "connect_timeout": 5.0,
            "request_timeout": 30.0,
            "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=3),
        }
        if self.endpoint:
            kwargs["endpoint_override"] = self.endpoint
            kwargs["force_virtual_addressing"] = not self.path_style
        if self.access_key is None:
            kwargs.pop("access_key")
            kwargs.pop("secret_key")
            kwargs.pop("session_token")
        return pafs.S3FileSystem(**kwargs)


@functools.lru_cache(maxsize=64)
def bucket_region(bucket: str) -> str | None:
    """The AWS region of ``bucket`` (one request; None when it cannot be told, e.g. offline:
    the SDK's default then applies and a wrong-region error names the bucket)."""
    try:
        return str(pafs.resolve_s3_region(bucket))
    except (OSError, ValueError):
        return None


def split_s3_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/a/b?x`` -> (``bucket``, ``bucket/a/b``): the bucket and the pyarrow path."""
    rest = uri.split("://", 1)[1].split("?", 1)[0]
    bucket = rest.split("/", 1)[0]
    if not bucket:
        raise ValidationError(f"The warehouse {uri!r} names no bucket (s3://bucket/path)")
    return bucket, rest.rstrip("/")


def check_reachable(fs: pafs.FileSystem, settings: S3Settings, bucket: str, warehouse: str) -> None:
    """One request to the bucket, so that a wrong endpoint, wrong credentials or a missing bucket
    fail at once with an error naming the option at fault (nothing is written)."""
    try:
        info = fs.get_file_info(bucket)
    except OSError as e:
        raise _explain(e, settings, warehouse) from e
    if info.type == pafs.FileType.NotFound:
        raise ValidationError(
            f"The bucket {bucket!r} of warehouse {warehouse!r} does not exist at "
            f"{OPT_ENDPOINT} {settings.endpoint or '(AWS default)'}; create it first"
        )


def _explain(e: OSError, settings: S3Settings, warehouse: str) -> ValidationError:
    text = str(e)
    low = text.lower()
    if any(s in low for s in ("accessdenied", "access denied", "access_denied", "invalidaccesskeyid", "signaturedoesnotmatch",
                              "forbidden", "403", "credentials")):
        return ValidationError(
            f"The S3 store refused the credentials for warehouse {warehouse!r}: check catalog options "
            f"{OPT_ACCESS_KEY!r} and {OPT_SECRET_KEY!r} (or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY): {text}"
        )
    if any(s in low for s in ("curl", "connect", "resolve", "timeout", "network", "unreachable")):
        return ValidationError(
            f"Cannot reach the S3 endpoint {settings.endpoint or '(AWS default)'} of warehouse {warehouse!r}: "
            f"check catalog option {OPT_ENDPOINT!r}: {text}"
        )
    return ValidationError(f"Cannot open warehouse {warehouse!r} on S3 ({OPT_ENDPOINT} {settings.endpoint}): {text}")


class ConditionalPut:
    """``PUT`` with ``If-None-Match: *`` through botocore: creates a key only if absent, in one
    request (the store decides; two writers racing on one key never both succeed). Also whole-object
    ``GET`` and ``PUT`` in one request each, for the small metadata files."""

    def __init__(self, settings: S3Settings) -> None:
        self.settings = settings
        self._client: Any = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"settings": self.settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["settings"])  # type: ignore[misc]

    @staticmethod
    def available() -> bool:
        try:
            import botocore.session  # noqa: F401
        except ImportError:
            return False
        return True

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import botocore.config
                import botocore.session

                s = self.settings
                session = botocore.session.get_session()
                config = botocore.config.Config(
                    s3={"addressing_style": "path" if s.path_style else "virtual"} if s.endpoint else {},
                    connect_timeout=5, read_timeout=30, retries={"max_attempts": 3, "mode": "standard"},
                )
                self._client = session.create_client(
                    "s3", endpoint_url=s.endpoint, region_name=s.region or "us-east-1",
                    aws_access_key_id=s.access_key, aws_secret_access_key=s.secret_key,
                    aws_session_token=s.session_token, config=config,
                )
            return self._client

    def put(self, path: str, data: bytes) -> None:
        """One ``PUT`` of a whole object (pyarrow's output stream takes three requests: a
        multipart upload's create, part and complete)."""
        bucket, key = path.split("/", 1)
        self.client().put_object(Bucket=bucket, Key=key, Body=data)

    def get(self, path: str) -> bytes | None:
        """One ``GET`` of a whole object (pyarrow's input stream sends a ``HEAD`` first); None
        when it does not exist."""
        from botocore.exceptions import ClientError

        bucket, key = path.split("/", 1)
        try:
            body = self.client().get_object(Bucket=bucket, Key=key)["Body"]
            try:
                return bytes(body.read())
            finally:
                body.close()
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise

    def put_if_absent(self, path: str, data: bytes) -> bool:
        """Creates ``path`` (``bucket/key``) with ``data``; False when it exists already."""
        from botocore.exceptions import ClientError

        bucket, key = path.split("/", 1)
        self._check_store_honours(bucket, key)
        try:
            self.client().put_object(Bucket=bucket, Key=key, Body=data, IfNoneMatch="*")
            return True
        except ClientError as e:
            status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            code = e.response.get("Error", {}).get("Code")
            if status == 412 or code == "PreconditionFailed":
                return False
            if status == 409 or code == "ConditionalRequestConflict":  # a racing conditional PUT of this key
                return False
            raise

    def _check_store_honours(self, bucket: str, near: str) -> None:
        """Once per process and bucket: two conditional PUTs of a temp key next to ``near`` (named
        like the local temp files, ``.<name>.<uuid>.tmp``, where credentials limited to the
        warehouse's prefix allow writing); the second must be refused."""
        key = (self.settings.endpoint, bucket)
        if key in _HONOURED:
            return
        from botocore.exceptions import ClientError, ParamValidationError

        folder, _, name = near.rpartition("/")
        probe = f"{folder + '/' if folder else ''}.{name}.{uuid.uuid4().hex}.tmp"
        c = self.client()
        try:
            try:
                c.put_object(Bucket=bucket, Key=probe, Body=b"1", IfNoneMatch="*")
            except ParamValidationError as e:  # a botocore from before conditional writes
                raise UnsupportedError(
                    "Conditional writes to S3 (If-None-Match) need botocore >= 1.35 "
                    f"(pip install 'paimon-sql[s3]'); or set catalog option 'lock.enabled': {e}"
                ) from e
            try:
                c.put_object(Bucket=bucket, Key=probe, Body=b"2", IfNoneMatch="*")
                honoured = False
            except ClientError as e:
                honoured = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode") in (409, 412)
        finally:
            # the probe object is only a test key: a failed delete leaves a tiny object, never table data
            with contextlib.suppress(ClientError):
                c.delete_object(Bucket=bucket, Key=probe)
        if not honoured:
            raise UnsupportedError(
                f"The S3 store at {OPT_ENDPOINT} {self.settings.endpoint or '(AWS default)'} ignores "
                "conditional writes (If-None-Match), so concurrent commits could overwrite each other: "
                "commits to bucket "
                f"{bucket!r} need a lock (catalog option 'lock.enabled' with a catalog that provides one)"
            )
        _HONOURED.put(key, True)


# (endpoint, bucket) pairs whose store was seen to refuse a second conditional PUT of one key
_HONOURED: ProcessCache[tuple[str | None, str], bool] = process_cache("fs.s3.conditional_put", 256)
