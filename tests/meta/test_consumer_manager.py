"""The consumer files (Paimon's ConsumerManager): format, listing, minimum, expiry, corrupt files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from paimon_sql.errors import CorruptFileError, ValidationError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.consumer_manager import Consumer, ConsumerManager


def manager(tmp_path: Path) -> ConsumerManager:
    io, root = FileIO.for_uri(str(tmp_path))
    return ConsumerManager(io, root, "db.t")


def test_write_read_list_delete(tmp_path: Path) -> None:
    m = manager(tmp_path)
    assert m.ids() == [] and m.consumers() == {} and m.min_next_snapshot() is None
    m.reset("job2", Consumer(7))
    m.reset("job1", Consumer(3))
    # Paimon's JSON, as JsonSerdeUtil writes it
    assert (tmp_path / "consumer" / "consumer-job1").read_text() == '{\n  "nextSnapshot" : 3\n}'
    assert m.ids() == ["job1", "job2"]
    assert m.consumer("job2") == Consumer(7) and m.consumer("nope") is None
    assert m.min_next_snapshot() == 3
    m.reset("job1", Consumer(9))  # replaced
    assert m.min_next_snapshot() == 7
    (tmp_path / "consumer" / "other-file").write_text("x")  # not a consumer
    assert set(m.consumers()) == {"job1", "job2"}
    assert m.delete("job2") and not m.delete("job2")
    assert m.consumers() == {"job1": Consumer(9)}


def test_ids_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="consumer"):
        manager(tmp_path).reset("../x", Consumer(1))


def test_expire_by_modification_time(tmp_path: Path) -> None:
    m = manager(tmp_path)
    m.reset("old", Consumer(1))
    m.reset("new", Consumer(2))
    old = tmp_path / "consumer" / "consumer-old"
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    assert m.expire(int((time.time() - 60) * 1000)) == 1
    assert m.ids() == ["new"]


def test_corrupt_file_names_file_and_table(tmp_path: Path) -> None:
    m = manager(tmp_path)
    m.reset("a", Consumer(1))
    (tmp_path / "consumer" / "consumer-a").write_text('{"nextSnapshot": "1"}')
    with pytest.raises(CorruptFileError, match="consumer-a of table db.t"):
        m.min_next_snapshot()
