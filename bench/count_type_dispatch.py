"""Counts hand-written dispatch on Paimon type classes outside paimon_sql/types.py: ``isinstance``
calls whose class argument names a Paimon type (directly, as ``pt.XType``, or through a module
constant tuple of them) and ``type(x) in/is`` comparisons with them. Not part of CI.

    .venv/bin/python bench/count_type_dispatch.py
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections import Counter
from pathlib import Path

from paimon_sql import types as pt

TYPE_NAMES = {
    n for n, c in vars(pt).items() if inspect.isclass(c) and issubclass(c, pt.DataType) and c is not pt.DataType
} | {"DataType"}
FOREIGN = {"st", "pa", "sds"}  # pyspark.sql.types, pyarrow, pyspark.sql.datasource: same class names


def _names(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and not (isinstance(n.value, ast.Name) and n.value.id in FOREIGN):
            out.add(n.attr)
    return out


def scan(path: Path) -> list[int]:
    tree = ast.parse(path.read_text())
    consts = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.BinOp)):
            if _names(node.value) & TYPE_NAMES:
                consts |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    hits = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance" and len(n.args) == 2:
            if _names(n.args[1]) & (TYPE_NAMES | consts):
                hits.append(n.lineno)
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Call) and getattr(n.left.func, "id", "") == "type":
            if any(_names(c) & (TYPE_NAMES | consts) for c in n.comparators):
                hits.append(n.lineno)
    return hits


def main() -> None:
    roots = [Path(a) for a in sys.argv[1:]] or [Path("paimon_sql"), Path("pyspark_paimon_sql")]
    counts: Counter[str] = Counter()
    for root in roots:
        for p in sorted(root.rglob("*.py")):
            if p.as_posix().endswith("paimon_sql/types.py"):
                continue
            for line in scan(p):
                counts[p.as_posix()] += 1
                print(f"{p}:{line}")
    for f, c in counts.most_common():
        print(f"{c:4d} {f}")
    print(f"{sum(counts.values()):4d} total")


if __name__ == "__main__":
    main()
