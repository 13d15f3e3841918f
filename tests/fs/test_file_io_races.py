"""Listing a folder that another process creates at the same moment, and writing into one that
another process removes.

pyarrow's local listing, asked to allow a missing directory, lists first and, when that fails,
looks whether the directory exists: a directory created between the two looks (a table's first
commit makes ``snapshot/`` while another writer lists it) raises FileNotFoundError. FileIO looks
again. CI once lost a concurrent-writers test to it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs
import pytest

from paimon_sql.fs.file_io import FileIO


class _RacedFs:
    """A local file system whose first ``failures`` listings fail as the race makes them fail,
    creating the directory as the other process would."""

    def __init__(self, failures: int, create: str | None = None) -> None:
        self.inner = pafs.LocalFileSystem()
        self.failures = failures
        self.create = create
        self.listings = 0

    def get_file_info(self, what: Any) -> Any:
        if isinstance(what, pafs.FileSelector):
            self.listings += 1
            if self.failures > 0:
                self.failures -= 1
                if self.create is not None:
                    os.makedirs(self.create, exist_ok=True)
                raise FileNotFoundError(f"Cannot list directory '{what.base_dir}'")
        return self.inner.get_file_info(what)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _io(fs: _RacedFs) -> FileIO:
    fio = FileIO(pafs.LocalFileSystem())
    fio.fs = fs
    return fio


def test_a_directory_created_during_the_listing_is_listed_again(tmp_path: Path) -> None:
    d = tmp_path / "snapshot"
    fs = _RacedFs(failures=1, create=str(d))
    (tmp_path / "other").mkdir()
    fio = _io(fs)
    assert fio.list_names(str(d)) == []
    assert fs.listings == 2
    (d / "snapshot-1").write_text("{}")
    fs.failures = 1
    assert fio.list_names(str(d)) == ["snapshot-1"]
    fs.failures = 1
    assert [s.path for s in fio.walk_files(str(tmp_path))] == [str(d / "snapshot-1")]


def test_a_missing_directory_is_empty_and_a_listing_that_keeps_failing_raises(tmp_path: Path) -> None:
    fio = _io(_RacedFs(failures=0))
    assert fio.list_names(str(tmp_path / "absent")) == []
    fs = _RacedFs(failures=100)
    with pytest.raises(FileNotFoundError):
        _io(fs).list_names(str(tmp_path))
    assert fs.listings == 3  # looked again twice, then gave up


class _EmptiedFs:
    """A local file system on which another process removes a new file's (empty) folder right
    after it is made, ``times`` times: snapshot expiry with ``snapshot.clean-empty-directories``
    removing a bucket folder a writer is about to write into."""

    def __init__(self, times: int) -> None:
        self.inner = pafs.LocalFileSystem()
        self.times = times

    def create_dir(self, path: str, recursive: bool = True) -> None:
        self.inner.create_dir(path, recursive=recursive)
        if self.times > 0:
            self.times -= 1
            os.rmdir(path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_folder_removed_before_the_file_in_it_is_made_is_made_again(tmp_path: Path) -> None:
    fio = FileIO(pafs.LocalFileSystem())
    fio.fs = _EmptiedFs(times=2)
    target = tmp_path / "p=1" / "bucket-0" / "data-1.parquet"
    fio.write_bytes(str(target), b"rows")
    assert target.read_bytes() == b"rows"
    fio.fs = _EmptiedFs(times=1)
    fio.overwrite_atomic(str(tmp_path / "snapshot" / "LATEST"), b"7")
    assert (tmp_path / "snapshot" / "LATEST").read_bytes() == b"7"
    fio.fs = _EmptiedFs(times=3)
    with pytest.raises(FileNotFoundError):  # a folder that keeps going away is an error, not a loop
        fio.write_bytes(str(tmp_path / "q" / "f"), b"x")
