"""The Java formatting facts the system tables rely on, checked against a real JVM when one is here:
HashMap iteration order, String order, Duration / LocalDateTime / Double toString, and Jackson's JSON
for Duration and LocalDateTime (the tag file fields). Skipped without javac."""

from __future__ import annotations

import datetime as dt
import glob
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql.ops.tags import duration_json, local_date_time_json
from paimon_sql.table.system._format import (
    file_format_of,
    java_duration_string,
    java_hash_map_order,
    java_local_date_time,
    java_string_key,
    java_to_string,
    parse_duration_json,
    parse_local_date_time_millis,
)
from paimon_sql.types import DoubleType, FloatType

KEYS = [
    "bucket", "manifest.format", "file.format", "scan.fallback-branch", "a", "b", "c", "d", "e", "f", "g",
    "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "aa", "bb", "cc", "write-only", "snapshot.time-retained",
    "deletion-vectors.enabled", "ümlaut", "日本", "\U0001f600x", "Aa", "BB",  # "Aa" and "BB" collide
]
DURATIONS_MS = [0, 1, 500, 1000, 60_000, 61_000, 3_600_000, 86_400_000, 90_061_001, 7 * 86_400_000 + 5]
DATETIMES = [
    dt.datetime(2024, 1, 2, 3, 4), dt.datetime(2024, 1, 2, 3, 4, 5), dt.datetime(2024, 1, 2, 3, 4, 0, 120000),
    dt.datetime(1969, 12, 31, 23, 59, 59, 999999), dt.datetime(2024, 2, 29, 0, 0, 0, 1000),
]
# (JDK 17 prints a few floats with more digits than the shortest form, e.g. 1.23456792E8; Paimon
# on JDK 19+ and paimon_sql print the shortest: such values are left out here)
DOUBLES = [0.0, -0.0, 1.0, 1.5, 1e7, 1e-3, 9.999e-4, 1e10, 1e-4, 123456.789, -2.5e-8, 1 / 3, 0.1]

JAVA = r"""
import java.util.*;
import java.time.*;
public class Facts {
  public static void main(String[] a) throws Exception {
    List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Paths.get(a[0]));
    String[] keys = lines.get(0).split("\t");
    Map<String, String> m = new HashMap<>();
    for (String k : keys) m.put(k, "");
    System.out.println(String.join("\t", m.keySet()));
    List<String> sorted = new ArrayList<>(Arrays.asList(keys)); Collections.sort(sorted);
    System.out.println(String.join("\t", sorted));
    StringBuilder sb = new StringBuilder();
    for (String d : lines.get(1).split(",")) sb.append(Duration.ofMillis(Long.parseLong(d))).append(",");
    System.out.println(sb);
    sb = new StringBuilder();
    for (String d : lines.get(2).split(",")) {
      String[] p = d.split(":");
      sb.append(LocalDateTime.ofEpochSecond(Long.parseLong(p[0]), Integer.parseInt(p[1]), ZoneOffset.UTC)).append(",");
    }
    System.out.println(sb);
    sb = new StringBuilder();
    for (String d : lines.get(3).split(",")) sb.append(Double.toString(Double.parseDouble(d))).append("|")
        .append(Float.toString((float) Double.parseDouble(d))).append(",");
    System.out.println(sb);
  }
}
"""

JACKSON = r"""
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.*;
import java.util.*;
public class JacksonFacts {
  public static void main(String[] a) throws Exception {
    ObjectMapper m = new ObjectMapper(); m.registerModule(new JavaTimeModule());
    List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Paths.get(a[0]));
    List<Object> out = new ArrayList<>();
    for (String d : lines.get(0).split(",")) out.add(Duration.ofMillis(Long.parseLong(d)));
    for (String d : lines.get(1).split(",")) {
      String[] p = d.split(":");
      out.add(LocalDateTime.ofEpochSecond(Long.parseLong(p[0]), Integer.parseInt(p[1]), ZoneOffset.UTC));
    }
    System.out.println(m.writeValueAsString(out));
  }
}
"""


def _epoch_parts(d: dt.datetime) -> tuple[int, int]:
    delta = d - dt.datetime(1970, 1, 1)
    secs = delta.days * 86400 + delta.seconds
    return secs, delta.microseconds * 1000


def _compile_run(tmp_path: Path, name: str, source: str, lines: list[str], classpath: str = "") -> list[str]:
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK")
    (tmp_path / f"{name}.java").write_text(source)
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cp = f"{classpath}:{tmp_path}" if classpath else str(tmp_path)
    subprocess.run(["javac", "-encoding", "UTF-8", "-cp", cp, "-d", str(tmp_path), str(tmp_path / f"{name}.java")],
                   check=True, capture_output=True)
    out = subprocess.run(["java", "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-cp", cp, name,
                          str(tmp_path / "in.txt")], check=True, capture_output=True)
    return out.stdout.decode("utf-8").splitlines()


def test_against_the_jdk(tmp_path: Path) -> None:
    stamps = [_epoch_parts(d) for d in DATETIMES] + [(0, 1), (1, 1000), (-1, 999_999_999)]
    out = _compile_run(tmp_path, "Facts", JAVA, [
        "\t".join(KEYS), ",".join(str(d) for d in DURATIONS_MS),
        ",".join(f"{s}:{n}" for s, n in stamps), ",".join(repr(d) for d in DOUBLES),
    ])
    assert out[0].split("\t") == java_hash_map_order(KEYS)
    assert out[1].split("\t") == sorted(KEYS, key=java_string_key)
    assert out[2].rstrip(",").split(",") == [
        java_duration_string(ms // 1000, ms % 1000 * 1_000_000) for ms in DURATIONS_MS
    ]
    assert out[3].rstrip(",").split(",") == [java_local_date_time(s, n) for s, n in stamps]
    doubles = pa.array(DOUBLES, pa.float64())
    ours = zip(java_to_string(doubles, DoubleType()).to_pylist(),
               java_to_string(doubles.cast(pa.float32()), FloatType()).to_pylist())
    assert out[4].rstrip(",").split(",") == [f"{d}|{f}" for d, f in ours]


def _jackson_classpath() -> str:
    for site in sys.path:
        jars = glob.glob(str(Path(site) / "pyspark" / "jars" / "jackson-*.jar"))
        if any("jsr310" in j for j in jars):
            return ":".join(j for j in jars if any(k in j for k in ("annotations", "core-", "databind", "jsr310")))
    return ""


def test_tag_json_fields_against_jackson(tmp_path: Path) -> None:
    cp = _jackson_classpath()
    if not cp:
        pytest.skip("no Jackson jars (they come with pyspark)")
    out = _compile_run(tmp_path, "JacksonFacts", JACKSON, [
        ",".join(str(d) for d in DURATIONS_MS),
        ",".join(f"{s}:{n}" for s, n in (_epoch_parts(d) for d in DATETIMES)),
    ], cp)
    ours = "[" + ",".join([duration_json(ms) for ms in DURATIONS_MS] +
                          [json.dumps(local_date_time_json(d), separators=(",", ":")) for d in DATETIMES]) + "]"
    assert out[0] == ours


def test_stored_values_parse_back() -> None:
    for ms in DURATIONS_MS:
        text = duration_json(ms)
        assert parse_duration_json(json.loads(text)) == (ms // 1000, ms % 1000 * 1_000_000)
    assert parse_duration_json("PT1H30M") == (5400, 0)
    assert parse_duration_json("nonsense") is None
    for d in DATETIMES:
        ms = parse_local_date_time_millis(local_date_time_json(d))
        assert ms is not None
        assert dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms) == d.replace(
            microsecond=d.microsecond // 1000 * 1000)
    assert parse_local_date_time_millis("2024-01-02T03:04:05.5") == parse_local_date_time_millis([2024, 1, 2, 3, 4, 5, 500000000])


def test_file_format_of() -> None:
    assert file_format_of("data-1.parquet") == "parquet"
    assert file_format_of("data-1.orc") == "orc"
    assert file_format_of("data-1.csv.gz") == "csv"
    assert file_format_of("data-1.json.zst") == "json"
