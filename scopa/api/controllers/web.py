"""The reference web client: its start screen at ``/`` and its files under ``/static``.

The client is plain files talking to the public API only; nothing here knows a match.
"""

from __future__ import annotations

from pathlib import Path

from litestar import Router, get
from litestar.datastructures import CacheControlHeader
from litestar.response import File
from litestar.static_files import create_static_files_router

STATIC = Path(__file__).resolve().parent.parent / "static"
# No build step means no hashed file names: revalidate, so a new release is seen at once.
REVALIDATE = CacheControlHeader(no_cache=True)


@get("/", include_in_schema=False, cache_control=REVALIDATE)
async def start_screen() -> File:
    return File(STATIC / "index.html", filename="index.html", content_disposition_type="inline")


def static_files() -> Router:
    return create_static_files_router(
        path="/static", directories=[STATIC], cache_control=REVALIDATE, include_in_schema=False
    )
