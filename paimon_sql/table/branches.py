"""``table.branches``: a table's branches (Paimon's ``Table.createBranch`` / ``deleteBranch`` /
``fastForward`` and the branch procedures; pyiceberg's ``ManageSnapshots`` branch half). The logic is
in ``ops/branches.py``; the procedures call the same functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paimon_sql.lazy import lazy_module
from paimon_sql.meta.file_store import MAIN_BRANCH
from paimon_sql.table.facets import Facet, TableHandle

if TYPE_CHECKING:
    from paimon_sql.ops import branches as branch_ops
else:
    branch_ops = lazy_module("paimon_sql.ops.branches")


class Branches(Facet):
    """The branches of one table. ``table.branches()`` lists their names (``main`` not included)."""

    __slots__ = ()

    def __call__(self) -> list[str]:
        """The branches of the table (``main`` not included)."""
        return branch_ops.branch_names(self.table.store)

    def switch_to(self, name: str) -> TableHandle:
        """The branch ``name`` of this table (``main``: the main branch), to read and write."""
        return self.table.switch_to_branch(name)

    def create(self, branch: str, tag: str | None = None, ignore_if_exists: bool = False) -> branch_ops.CreateBranchResult:
        """Creates ``branch`` from ``tag`` of this table (or branch), or empty with the current schema."""
        return branch_ops.create_branch(self.table.store, branch, tag, ignore_if_exists)

    def delete(self, branches: str | Sequence[str]) -> branch_ops.DeleteBranchResult:
        """Deletes the branches ``branches`` names (comma-separated, or a list)."""
        return branch_ops.delete_branch(self.table.store, branches)

    def rename(self, from_branch: str, to_branch: str) -> branch_ops.RenameBranchResult:
        """Renames branch ``from_branch`` to ``to_branch``."""
        return branch_ops.rename_branch(self.table.store, from_branch, to_branch)

    def merge(self, source_branch: str, target_branch: str = MAIN_BRANCH) -> branch_ops.MergeBranchResult:
        """Paimon's ``merge_branch`` (append tables): the data files of ``source_branch`` that
        ``target_branch`` (default main) lacks are added to it in one APPEND commit."""
        table = self.table
        return branch_ops.merge_branch(table.store, source_branch, target_branch,
                                       table._committer(table.store, maintain=False))

    def fast_forward(self, branch: str) -> branch_ops.FastForwardResult:
        """Replaces this table's (or branch's) snapshots, schemas and tags from ``branch``'s earliest
        snapshot on by ``branch``'s; returns what changed. Reload the table afterwards (the
        schema may have changed)."""
        return branch_ops.fast_forward(self.table.store, branch)
