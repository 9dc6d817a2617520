"""The reference web client: its start screen at ``/``, its files under ``/static``, and
its service worker at ``/sw.js``.

The client is plain files talking to the public API only; nothing here knows a match.
"""

from __future__ import annotations

import json
from pathlib import Path

from litestar import Response, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.response import File
from litestar.static_files import create_static_files_router

from scopa.api import __version__

STATIC = Path(__file__).resolve().parent.parent / "static"
# No build step means no hashed file names: revalidate, so a new release is seen at once.
REVALIDATE = CacheControlHeader(no_cache=True)


def shell_files() -> list[str]:
    """The addresses of the client's own files, which the service worker keeps offline."""
    names = sorted(
        path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*") if path.is_file()
    )
    return ["/", *(f"/static/{name}" for name in names if name != "sw.js")]


@get("/", include_in_schema=False, cache_control=REVALIDATE)
async def start_screen() -> File:
    return File(STATIC / "index.html", filename="index.html", content_disposition_type="inline")


@get("/sw.js", include_in_schema=False, cache_control=REVALIDATE)
async def service_worker() -> Response[str]:
    """Served from the root so that its scope is the whole client. The server's version
    and file list lead the script: a new release changes its bytes, which is what makes
    browsers install it anew and drop the old release's cache."""
    head = (
        f"const VERSION = {json.dumps(__version__)};\nconst SHELL = {json.dumps(shell_files())};\n"
    )
    body = (STATIC / "sw.js").read_text(encoding="utf-8")
    # Litestar adds the charset to a text/ type itself.
    return Response(head + body, media_type="text/javascript")


def static_files() -> Router:
    return create_static_files_router(
        path="/static", directories=[STATIC], cache_control=REVALIDATE, include_in_schema=False
    )
