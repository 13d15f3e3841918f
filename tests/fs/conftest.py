"""The object-store tests of this folder share one moto S3 server (tests/helpers/s3_server.py)."""

from __future__ import annotations

from tests.helpers.s3_server import s3_server_fixture, s3_warehouse_fixture  # noqa: F401
