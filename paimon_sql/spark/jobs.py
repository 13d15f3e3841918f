"""Procedure jobs as Spark jobs: the catalog shim reads the data source with the ``paimon.job.*``
options to run a procedure's tasks (``paimon_sql.procedures.registry.ProcedureJob``: compaction,
one task per bucket) in the executors' Python workers. Each input partition is one task; its one
row is the task's message, which the shim hands to the bridge's ``finish_procedure`` on the driver.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from pyspark.sql import types as st
from pyspark.sql.datasource import DataSourceReader, InputPartition

from paimon_sql.errors import ValidationError
from paimon_sql.spark.worker_memory import prepare_worker

OPT_JOB_PROCEDURE = "paimon.job.procedure"
OPT_JOB_STATE = "paimon.job.state"
OPT_JOB_TASKS = "paimon.job.tasks"
JOB_SCHEMA = st.StructType([st.StructField("message", st.StringType(), False)])


def is_job(options: Mapping[str, str]) -> bool:
    return OPT_JOB_PROCEDURE in options


class JobPartition(InputPartition):
    def __init__(self, index: int, task: str) -> None:
        super().__init__(index)
        self.task = task


class JobReader(DataSourceReader):
    def __init__(self, options: Mapping[str, str]) -> None:
        self.procedure = options[OPT_JOB_PROCEDURE]
        self.state = options.get(OPT_JOB_STATE, "")
        try:
            tasks = json.loads(options.get(OPT_JOB_TASKS, "[]"))
        except json.JSONDecodeError as e:
            raise ValidationError(f"Option {OPT_JOB_TASKS!r} must be a JSON list of strings: {e}") from None
        if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
            raise ValidationError(f"Option {OPT_JOB_TASKS!r} must be a JSON list of strings")
        self.tasks: list[str] = tasks

    def partitions(self) -> list[InputPartition]:
        return [JobPartition(i, t) for i, t in enumerate(self.tasks)]

    def read(self, partition: InputPartition) -> Iterator[tuple[str]]:
        from paimon_sql.procedures.registry import run_procedure_task

        assert isinstance(partition, JobPartition)
        prepare_worker()
        yield (run_procedure_task(self.procedure, self.state, partition.task),)
