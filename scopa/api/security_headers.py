"""The headers that keep a browser from misusing this server's answers, added to every
answer on its way out (``api.middleware.observe``), errors and static files included.

- ``Content-Security-Policy``: a page of this server runs only this origin's scripts and
  styles, connects only to this origin, embeds no plugin, takes no ``<base>``, and no
  page of any origin may frame it (``frame-ancestors 'none'``: no clickjacking of the
  lobby or a match). The web client has no inline script or style (it sets style values
  through the CSSOM, which the policy allows). Two pages need more: a problem type's page
  (``/problems/<name>``) has one inline style, let in by its hash; the Swagger UI
  (``/schema/swagger``) starts with an inline script and style and draws data: images.
- ``X-Content-Type-Options: nosniff``: an answer is only what its Content-Type says; a
  JSON answer echoing a client's text is never run as a script or a style sheet.
- ``Referrer-Policy: no-referrer``: a link followed from the client tells the other site
  nothing of the page it came from.

Not Litestar's ``response_headers``: those miss the answers made from an exception (every
problem+json, a static file's 404) and document each header on every operation of the
API document.
"""

from __future__ import annotations

import base64
import hashlib

from scopa.api.controllers.problems import PAGE_STYLE

Headers = list[tuple[bytes, bytes]]

_EVERYWHERE = "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
CLIENT_POLICY = f"default-src 'self'; form-action 'self'; {_EVERYWHERE}"
_STYLE_HASH = base64.b64encode(hashlib.sha256(PAGE_STYLE.encode()).digest()).decode()
PROBLEM_PAGE_POLICY = f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; {_EVERYWHERE}"
SWAGGER_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    f"img-src 'self' data:; {_EVERYWHERE}"
)
SWAGGER_PAGE = "/schema/swagger"
PROBLEM_PAGES = "/problems/"


def _headers(policy: str) -> Headers:
    return [
        (b"content-security-policy", policy.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]


_CLIENT = _headers(CLIENT_POLICY)
_PROBLEM_PAGE = _headers(PROBLEM_PAGE_POLICY)
_SWAGGER = _headers(SWAGGER_POLICY)


def security_headers(path: str) -> Headers:
    """The headers for the answer to ``path``."""
    if path.startswith(PROBLEM_PAGES):
        return _PROBLEM_PAGE
    if path.rstrip("/") == SWAGGER_PAGE:
        return _SWAGGER
    return _CLIENT
