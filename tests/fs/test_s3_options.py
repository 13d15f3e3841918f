"""Catalog options of an S3 warehouse (Paimon's names under every prefix Paimon and pypaimon read,
the AWS environment variables) and how sessions and ``paimon-sql`` pass them on; no server needed."""

from __future__ import annotations

import pytest

from paimon_sql.errors import ValidationError
from paimon_sql.fs.s3 import S3Settings, is_s3_uri, is_storage_option, split_s3_uri

_AWS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION")


@pytest.fixture(autouse=True)
def _no_aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _AWS:
        monkeypatch.delenv(name, raising=False)


def test_paimon_option_names() -> None:
    s = S3Settings.of({"s3.endpoint": "minio:9000", "s3.access-key": "ak", "s3.secret-key": "sk",
                       "s3.path.style.access": "true", "s3.region": "eu-west-1"})
    assert s == S3Settings("https://minio:9000", "ak", "sk", None, "eu-west-1", True)
    s = S3Settings.of({"fs.s3a.endpoint": "minio:9000", "s3a.access.key": "ak", "fs.s3a.secret.key": "sk",
                       "s3.connection.ssl.enabled": "false", "s3.path-style-access": "false",
                       "s3.endpoint.region": "r"})
    assert s == S3Settings("http://minio:9000", "ak", "sk", None, "r", False)
    # pypaimon's spellings
    s = S3Settings.of({"fs.s3.endpoint": "http://h:1", "fs.s3.accessKeyId": "ak", "fs.s3.accessKeySecret": "sk",
                       "fs.s3.securityToken": "tok"})
    assert (s.endpoint, s.access_key, s.secret_key, s.session_token) == ("http://h:1", "ak", "sk", "tok")


def test_environment_variables_when_options_are_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://env:9000")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "eak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "esk")
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    assert S3Settings.of({}) == S3Settings("http://env:9000", "eak", "esk", None, "us-west-2", False)
    # options win over the environment
    assert S3Settings.of({"s3.access-key": "ak", "s3.secret-key": "sk"}).access_key == "ak"


def test_bad_options_name_the_option() -> None:
    with pytest.raises(ValidationError, match="'s3.path.style.access' must be true or false"):
        S3Settings.of({"s3.path.style.access": "yes"})
    with pytest.raises(ValidationError, match="'s3.access-key' is required"):
        S3Settings.of({"s3.secret-key": "sk"})
    with pytest.raises(ValidationError, match="names no bucket"):
        split_s3_uri("s3:///wh")


def test_uris_and_storage_options() -> None:
    assert is_s3_uri("s3://b/wh") and is_s3_uri("S3A://b/wh") and is_s3_uri("s3n://b")
    assert not is_s3_uri("/tmp/s3://x") and not is_s3_uri("file:/wh")
    assert split_s3_uri("s3://b/a/b/?x=1") == ("b", "b/a/b")
    assert is_storage_option("s3.endpoint") and is_storage_option("fs.s3a.secret.key")
    assert not is_storage_option("warehouse") and not is_storage_option("metastore")


def test_session_and_cli_pass_catalog_options() -> None:
    pytest.importorskip("pyspark")
    from paimon_sql.spark.session import catalog_conf

    conf = catalog_conf("s3://b/wh", "lake", catalog_options={"s3.endpoint": "http://h:9000"})
    assert conf["spark.sql.catalog.lake.warehouse"] == "s3://b/wh"
    assert conf["spark.sql.catalog.lake.s3.endpoint"] == "http://h:9000"
    with pytest.raises(ValidationError, match="'warehouse'"):
        catalog_conf("s3://b/wh", "lake", catalog_options={"warehouse": "x"})
    from paimon_sql.errors import NotFoundError

    try:
        from paimon_sql.spark.cli import build_command

        cmd, _ = build_command(["--warehouse", "s3://b/wh", "--catalog-option", "s3.endpoint=http://h:9000",
                                "--catalog-option", "s3.path.style.access=true", "-e", "SELECT 1"])
    except NotFoundError as e:  # no shim jar built
        pytest.skip(str(e))
    assert "spark.sql.catalog.paimon.s3.endpoint=http://h:9000" in cmd
    assert "spark.sql.catalog.paimon.s3.path.style.access=true" in cmd
    assert "spark.sql.catalog.paimon.warehouse=s3://b/wh" in cmd
    with pytest.raises(ValidationError, match="--catalog-option takes KEY=VALUE"):
        build_command(["--catalog-option", "novalue"])


def test_spark_conf_flags_carry_catalog_options(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspark")
    from paimon_sql.spark.__main__ import main

    assert main(["conf", "--warehouse", "s3://b/wh", "--catalog-option", "s3.endpoint=http://h:9000"]) == 0
    out = capsys.readouterr().out
    assert "spark.sql.catalog.paimon.warehouse=s3://b/wh" in out
    assert "spark.sql.catalog.paimon.s3.endpoint=http://h:9000" in out
    assert main(["conf", "--catalog-option", "bad"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err
