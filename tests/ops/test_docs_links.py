"""The README's and the docs' links lead somewhere inside this repository.

A clone must stand alone: a relative link names a file of the repository that exists (a
heading of it when it carries ``#anchor``), never one outside it, and every page of docs/
can be reached from the README. Web links (http, https, mailto) are left alone. A path
written in backticks (`scopa/domain/cards.py`, `infra/`, `tests/api/test_moves.py::test_x`)
names something that exists too: the code moves, and the docs must move with it.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+).+?\1")
_INLINE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_HTML = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']*)["']""")
_HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']""")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_WEB = ("http://", "https://", "mailto:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        lines.append(line)
    return lines


# Where a path in backticks may start: the repository, the package (`infra/ai_pool.py`,
# as docs/architecture.md writes them) and the API's folder (`static/js/game.js`).
PATH_ROOTS = ("", "scopa/", "scopa/api/")
_PATH_SPAN = re.compile(r"(`+)([^`\s<>{}$=]*/[^`\s<>{}$=]*)\1")


def tracked_files(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
    )
    return listed.stdout.split()


def missing_paths(page: Path, tracked: list[str], root: Path = ROOT) -> list[str]:
    """The paths in backticks on ``page`` that name nothing in the repository: a span
    with a slash whose first part is a folder of the repository (or of the package, or of
    its API), with a test id's ``::`` part dropped and ``*`` taken as a glob."""
    folders = {
        prefix: {f[len(prefix) :].split("/")[0] for f in tracked if f.startswith(prefix)}
        for prefix in PATH_ROOTS
    }
    missing: list[str] = []
    for line in prose_lines(page.read_text(encoding="utf-8")):
        for _, span in _PATH_SPAN.findall(line):
            path = span.split("::")[0].rstrip("/")
            if "://" in span or not path:
                continue
            first = path.split("/")[0]
            bases = [root / prefix for prefix in PATH_ROOTS if first in folders[prefix]]
            if bases and not any(
                any(base.glob(path)) if "*" in path else (base / path).exists() for base in bases
            ):
                missing.append(span)
    return missing


def links(text: str) -> list[str]:
    found: list[str] = []
    for line in prose_lines(text):
        line = _CODE_SPAN.sub("", line)
        found += _INLINE.findall(line)
        found += _REFERENCE.findall(line)
        found += _HTML.findall(line)
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces
    made hyphens (underscores and hyphens stay)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(text):
        found.update(_HTML_ANCHOR.findall(line))
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def problems(page: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with each link of ``page``, one line per bad link."""
    text = page.read_text(encoding="utf-8")
    wrong: list[str] = []
    for target in links(text):
        if target.startswith(_WEB):
            continue
        if not target:
            wrong.append("an empty link")
            continue
        if _SCHEME.match(target) or target.startswith("/"):
            wrong.append(f"{target}: not a relative link into the repository")
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / unquote(path)).resolve() if path else page
        if not resolved.is_relative_to(root):
            wrong.append(f"{target}: points outside the repository")
            continue
        if not resolved.exists():
            wrong.append(f"{target}: no such file")
            continue
        if anchor:
            if resolved.suffix != ".md" or not resolved.is_file():
                wrong.append(f"{target}: an anchor into something that is not a page")
            elif unquote(anchor) not in anchors(resolved.read_text(encoding="utf-8")):
                wrong.append(f"{target}: no heading #{anchor} in {resolved.name}")
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_link_resolves_inside_the_repository(page: Path) -> None:
    assert problems(page) == []


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_path_in_backticks_exists(page: Path) -> None:
    assert missing_paths(page, tracked_files(ROOT)) == []


def test_the_path_check_finds_a_path_that_moved(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    page.write_text(
        "`scopa/domain/cards.py` `infra/ai_pool.py` `static/js/game.js` `tests/api/`\n"
        "`tests/api/test_moves.py::test_a_move` `scopa/migrations/versions/0001_*.py`\n"
        "`scopa/domain/views.py` `infra/cli.py` `static/js/nowhere.js`\n"
        "`/v1/matches/{id}` `application/json` `python -m pytest tests/none` `https://x/y`\n"
        "```\n`scopa/in/a/fence.py`\n```\n"
    )
    assert missing_paths(page, tracked_files(ROOT)) == [
        "scopa/domain/views.py",
        "infra/cli.py",
        "static/js/nowhere.js",
    ]


def test_every_page_of_docs_can_be_reached_from_the_readme() -> None:
    reached: set[Path] = set()
    todo = [ROOT / "README.md"]
    while todo:
        page = todo.pop()
        if page in reached:
            continue
        reached.add(page)
        for target in links(page.read_text(encoding="utf-8")):
            path = target.partition("#")[0]
            if path.endswith(".md") and not target.startswith(_WEB):
                todo.append((page.parent / unquote(path)).resolve())
    assert [p.name for p in PAGES if p not in reached] == []


def test_the_checker_finds_each_kind_of_bad_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("# Rules\n\n## Scoring a deal\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/rules.md#scoring-a-deal) [web](https://example.org/x)\n"
        "[up](../shared/RULES.md) [gone](docs/api.md) [anchor](docs/rules.md#variants)\n"
        "[abs](/etc/passwd) [self](#nowhere)\n"
        "```\n[in code](../ignored.md)\n```\n"
        "`[span](../ignored.md)`\n"
    )
    assert problems(page, tmp_path) == [
        "../shared/RULES.md: points outside the repository",
        "docs/api.md: no such file",
        "docs/rules.md#variants: no heading #variants in rules.md",
        "/etc/passwd: not a relative link into the repository",
        "#nowhere: no heading #nowhere in README.md",
    ]


def test_anchors_follow_githubs_headings() -> None:
    text = "# Compatibility of `/v1`\n## Events: `card_played`\n## Events: `card_played`\n"
    assert anchors(text) == {"compatibility-of-v1", "events-card_played", "events-card_played-1"}


# A document named in code: `docs/api.md`, `api.md`, `README.md` (not `API.md`).
_DOCUMENT = re.compile(r"(?<![\w./-])([\w./-]*\w\.md)\b")
CODE_SUFFIXES = (".py", ".js", ".toml", ".yaml", ".yml", ".html", ".css")


def test_the_code_cites_only_documents_the_repository_has() -> None:
    tracked = tracked_files(ROOT)
    cited = [
        f"{name}:{number}: {document}"
        for name in tracked
        if name.endswith(CODE_SUFFIXES) and name != "tests/ops/test_docs_links.py"
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
        for document in _DOCUMENT.findall(line)
        if not any(t == document or t.endswith(f"/{document}") for t in tracked)
    ]
    assert cited == []


# The project's work items ("issue 14", "task 3", "#27") mean nothing to a user.
_WORK_ITEM = re.compile(r"\b(?:issue|task|ticket)s?\s+#?\d+|(?<![\w&/])#\d+\b", re.IGNORECASE)


@pytest.mark.parametrize("page", [*PAGES, ROOT / "CHANGELOG.md"], ids=lambda p: p.name)
def test_user_docs_name_no_work_items(page: Path) -> None:
    named = [line for line in page.read_text().splitlines() if _WORK_ITEM.search(line)]
    assert named == []
