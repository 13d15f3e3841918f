"""The engine's picklable store reference, as the data source sends it to executors."""

from __future__ import annotations

from paimon_sql.meta.store_ref import StoreRef

__all__ = ["StoreRef"]
