"""PaimonSparkTestBase.withTimeZone for our Spark tests: the session's and the JVM's zone, restored."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def time_zone(spark: Any, zone: str) -> Iterator[None]:
    """PaimonSparkTestBase.withTimeZone: the session's time zone and the JVM's default zone."""
    jtz = spark._jvm.java.util.TimeZone
    old_default = jtz.getDefault()
    old_conf = spark.conf.get("spark.sql.session.timeZone")
    jtz.setDefault(jtz.getTimeZone(zone))
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        yield
    finally:
        jtz.setDefault(old_default)
        spark.conf.set("spark.sql.session.timeZone", old_conf)
