"""The Swagger UI's assets, served from the installed swagger-ui-bundle-v2 package, so the
docs need no CDN. (The start screen at ``/`` is the web client's: ``api/controllers/web``.)"""

from __future__ import annotations

from litestar import Router
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

SWAGGER_ASSETS = "/static/swagger"


def swagger_assets() -> Router:
    return create_static_files_router(
        path=SWAGGER_ASSETS, directories=[swagger_ui_path], name="swagger-assets"
    )
