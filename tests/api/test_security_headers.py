"""The security headers: the web client's files and every other answer (errors included)
carry a Content-Security-Policy of this origin only that no page may frame, nosniff and a
referrer policy; the client has no inline script or style that the policy would break;
the problem pages and the Swagger UI get just what their inline parts need; /sw.js
names one charset."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

from tests.api.support import Client

STATIC = Path(__file__).resolve().parents[2] / "scopa" / "api" / "static"
CLIENT = ["/", "/sw.js", "/static/scopa.css", "/static/js/main.js", "/static/favicon.svg"]
OTHERS = ["/health", "/v1/matches", "/v1/matches/nonesuch", "/static/nonesuch.js", "/nope"]


def policy(header: str) -> dict[str, str]:
    directives = (d.strip().split(None, 1) for d in header.split(";") if d.strip())
    return {d[0]: d[1] if len(d) > 1 else "" for d in directives}


async def test_the_client_and_every_answer_forbid_framing_and_sniffing(client: Client) -> None:
    for path in CLIENT + OTHERS:
        answer = await client.get(path)
        assert answer.status_code in (200, 404), path
        rules = policy(answer.headers.get("content-security-policy", ""))
        assert rules.get("default-src") == "'self'", (path, rules)
        assert rules.get("frame-ancestors") == "'none'", (path, rules)
        assert rules.get("object-src") == "'none'", (path, rules)
        assert rules.get("base-uri") == "'none'", (path, rules)
        assert not [d for d in rules if d.startswith(("script-src", "style-src"))], path
        assert "unsafe" not in answer.headers["content-security-policy"], path
        assert answer.headers.get("x-content-type-options") == "nosniff", path
        assert answer.headers.get("referrer-policy") == "no-referrer", path


async def test_head_answers_carry_them_too(client: Client) -> None:
    answer = await client.head("/")
    assert policy(answer.headers["content-security-policy"])["frame-ancestors"] == "'none'"
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_the_service_worker_names_one_charset(client: Client) -> None:
    answer = await client.get("/sw.js")
    assert answer.headers["content-type"] == "text/javascript; charset=utf-8"


class Inline(HTMLParser):
    """What a strict policy refuses in a page: inline scripts, style elements and
    attributes, event handler attributes, javascript: links."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.found.append("an inline script")
        if tag == "style":
            self.found.append("a style element")
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"{tag} {name}={value!r}")
            if (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {name}={value!r}")


def test_the_client_has_nothing_inline_for_the_policy_to_refuse() -> None:
    page = Inline()
    page.feed((STATIC / "index.html").read_text())
    assert page.found == []
    # Scripts build elements with h(): a style given as text would be a style attribute.
    for module in (STATIC / "js").glob("*.js"):
        source = module.read_text()
        assert not re.search(r"""\bstyle:\s*[`"']""", source), module.name
        assert not re.search(r"""setAttribute\(\s*["']style""", source), module.name
        assert "eval(" not in source, module.name
        assert "new Function" not in source, module.name


async def test_a_problem_page_lets_in_its_own_style_alone(client: Client) -> None:
    answer = await client.get("/problems/not-found")
    assert answer.status_code == 200
    (style,) = re.findall(r"<style>(.*?)</style>", answer.text, re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    rules = policy(answer.headers["content-security-policy"])
    assert rules["default-src"] == "'none'"
    assert rules["style-src"] == f"'sha256-{digest}'"
    assert rules["frame-ancestors"] == "'none'"
    assert "script-src" not in rules


async def test_the_swagger_ui_gets_the_inline_parts_it_needs_and_no_framing(
    client: Client,
) -> None:
    answer = await client.get("/schema/swagger")
    assert answer.status_code == 200
    rules = policy(answer.headers["content-security-policy"])
    assert rules["script-src"] == "'self' 'unsafe-inline'"
    assert rules["style-src"] == "'self' 'unsafe-inline'"
    assert rules["frame-ancestors"] == "'none'"
    assert rules["default-src"] == "'self'"
    assert answer.headers["x-content-type-options"] == "nosniff"
