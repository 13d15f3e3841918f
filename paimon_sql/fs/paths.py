"""Path strings of a warehouse (``/``-separated, local or ``scheme://bucket/...``)."""

from __future__ import annotations


def join(*parts: str) -> str:
    out = parts[0].rstrip("/")
    for p in parts[1:]:
        if p:
            out = out + "/" + p.strip("/")
    return out


def parent(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[0]


def basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]
