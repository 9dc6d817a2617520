"""The README's walkthroughs and every example of docs/api.md, run against a live server.

The examples are read from the markdown itself, so an edit to either is checked. In a
```console block a line starting with ``$ `` is a command (continued while a line ends
with ``\\``), and the lines after it, up to the next command, are what it prints. A
```bash block is one command, and the ```console block next after it that holds no
command is what it prints. A document's commands run in order in one bash session (so
``ID=...`` carries over), in a folder of their own, against ``scopa serve`` on a free port
with a fresh SQLite database. Commands that start a server (``scopa serve``,
``http.server``) are not run: the test's server stands in for them.

What a command prints must equal what the document shows, under these rules only:

- wrapping: a shown line that starts with a space continues the line before it (the docs
  wrap long JSON lines); trailing blanks (``\\r`` too) and blank lines at the end of an
  output are dropped on both sides;
- the server's address: ``http://127.0.0.1:8000`` in a command is the live server's, and
  ``python examples/bot.py`` is this checkout's bot, run by the test's Python with
  ``--url`` of the live server;
- what the server draws at random: a match id (22 URL-safe characters in quotes) reads
  ``"<id>"``, a seat token (43 of them, or the first 12 and ``...`` as the docs cut it)
  reads ``"<token>"``; ``scp_...`` in a command is the player token printed last;
- a rated match is shuffled by the server in secret (it takes no seed), so in the
  README's bot section ``...`` in a shown line stands for any text and a number for any
  number: that section is checked for what its answers hold, not for the match's luck.

Seeded matches get the same cards and the same AI moves on every run, so everything else,
the AI's replies, the hints and the whole played-out match, must match as shown.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.server_process import ROOT, Server, start_server

# One server for the module: one worker takes the whole file.
pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("docs-examples")]

DOCUMENTED_BASE = "http://127.0.0.1:8000"
NOT_RUN = ("scopa serve", "http.server")
BOT = "python examples/bot.py"
# The sections run, by document; a section's flag: its rated match's luck is not checked.
SECTIONS: dict[str, list[tuple[str | None, bool]]] = {
    "README.md": [
        ("## A first match against the AI", False),
        ("## A bot with an identity, to its first rated match", True),
    ],
    "docs/api.md": [(None, False)],
}
# How long one document's commands may take: the played-out match is most of it.
RUN_SECONDS = 480
_FENCE = re.compile(r"^```(\w*)\s*$")
_ID = re.compile(r'"[A-Za-z0-9_-]{22}"')
_TOKEN = re.compile(r'"(?:[A-Za-z0-9_-]{43}|[A-Za-z0-9_-]{12}\.\.\.)"')
_ANY = re.compile(r"(\.\.\.)|(-?\d+(?:\.\d+)?)")


@dataclass
class Example:
    command: str
    shown: list[str]  # as the document prints it, wrapped
    line: int  # where the command starts in the document, from 1
    luck: bool = False  # what it prints depends on a secret shuffle


def blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """Each fenced block: its language, the number of its first line, its lines."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if opened is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        yield opened.group(1), i + 1, lines[i + 1 : end]
        i = end + 1


def section(text: str, heading: str | None) -> tuple[str, int]:
    """The text under ``heading`` up to the next heading of its level (all: None), and
    how many lines come before it."""
    if heading is None:
        return text, 0
    start = text.index(heading + "\n")
    level = heading.split(" ", 1)[0] + " "
    ends = [m.start() for m in re.finditer(rf"^{level}", text[start + 1 :], re.MULTILINE)]
    body = text[start : start + 1 + ends[0]] if ends else text[start:]
    return body, text[:start].count("\n")


def examples(document: str) -> list[Example]:
    text = (ROOT / document).read_text()
    found: list[Example] = []
    for heading, luck in SECTIONS[document]:
        body, offset = section(text, heading)
        found.extend(_examples(body, offset, luck))
    return [e for e in found if not any(word in e.command for word in NOT_RUN)]


def _examples(body: str, offset: int, luck: bool) -> list[Example]:
    found: list[Example] = []
    pending: Example | None = None  # a bash block waiting for its output
    for language, first, lines in blocks(body):
        first += offset + 1
        if language == "bash":
            pending = Example("\n".join(lines), [], first, luck)
            found.append(pending)
            continue
        if language != "console":
            continue
        if pending is not None and not any(line.startswith("$ ") for line in lines):
            pending.shown = lines
            pending = None
            continue
        current: Example | None = None
        continued = False
        for n, line in enumerate(lines):
            if continued and current is not None:
                current.command += "\n" + line
            elif line.startswith("$ "):
                current = Example(line[2:], [], first + n, luck)
                found.append(current)
            elif current is not None:
                current.shown.append(line)
            continued = line.endswith("\\") and current is not None and not current.shown
    return found


def unwrapped(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        line = line.rstrip()
        if line.startswith(" ") and out:
            out[-1] += line.lstrip()
        else:
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def normalised(lines: list[str]) -> list[str]:
    return [_TOKEN.sub('"<token>"', _ID.sub('"<id>"', line)) for line in unwrapped(lines)]


def matches(shown: str, printed: str, luck: bool) -> bool:
    if not luck:
        return shown == printed
    parts = _ANY.split(shown)
    pattern = ""
    for i in range(0, len(parts), 3):
        pattern += re.escape(parts[i])
        if i + 1 < len(parts):
            pattern += ".*" if parts[i + 1] else r"-?\d+(?:\.\d+)?"
    return re.fullmatch(pattern, printed) is not None


def runnable(command: str, base_url: str) -> str:
    command = command.replace(DOCUMENTED_BASE, base_url)
    bot = f"{sys.executable} {ROOT / 'examples' / 'bot.py'} --url {base_url}"
    command = command.replace(BOT, bot)
    # Printed outputs are kept as out.000, out.001, ...: the player token printed last.
    return command.replace("scp_...", "$(cat out.* | grep -o 'scp_[A-Za-z0-9_-]*' | tail -1)")


def run(commands: list[str], base_url: str, folder: Path) -> list[list[str]]:
    """What each command printed, run in order in one bash session in ``folder``."""
    script = ["set -u"]
    for n, command in enumerate(commands):
        script.append(f"{{\n{runnable(command, base_url)}\n}} > out.{n:03d}")
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [(folder / f"out.{n:03d}").read_text().splitlines() for n in range(len(commands))]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("docs-server")
    running = start_server(f"sqlite+aiosqlite:///{folder / 'docs.db'}", folder)
    try:
        yield running
    finally:
        running.stop()


def test_examples_are_found_with_their_output() -> None:
    """The parser reads the blocks as the documents mean them."""
    readme = examples("README.md")
    assert readme[0].command == "BASE=http://127.0.0.1:8000"
    assert readme[1].command.count("\n") == 2  # continued twice
    assert readme[1].command.endswith("> created.json")
    assert readme[1].shown == []
    assert any("wait=30" in e.command for e in readme)
    assert any(e.command.startswith(BOT) and e.luck for e in readme)
    api = examples("docs/api.md")
    loop = next(e for e in api if e.command.startswith("AUTH="))
    assert len(loop.shown) == 1
    assert loop.shown[0].startswith('{"status":"finished"')
    assert sum(bool(e.shown) for e in api) >= 20
    assert not any("scopa serve" in e.command for e in readme + api)
    assert not any(e.luck for e in api)


def test_luck_stands_for_numbers_and_elisions_only() -> None:
    shown = '{"handle":"robo",...,"rating":1662.3,"won":1}'
    assert matches(shown, '{"handle":"robo","kind":"bot","rating":1501,"won":0}', True)
    assert not matches(shown, '{"handle":"robo","kind":"bot","rating":"high","won":0}', True)
    assert not matches(shown, '{"handle":"bea","rating":1501,"won":0}', True)
    assert not matches(shown, '{"handle":"robo","kind":"bot","rating":1501,"won":0}', False)


@pytest.mark.slow
@pytest.mark.parametrize("document", list(SECTIONS))
def test_the_documents_examples_print_what_they_show(
    document: str, server: Server, tmp_path: Path
) -> None:
    found = examples(document)
    printed = run([e.command for e in found], server.base_url, tmp_path)
    wrong = []
    for example, actual in zip(found, printed, strict=True):
        shown, got = normalised(example.shown), normalised(actual)
        if len(shown) != len(got) or not all(
            matches(s, g, example.luck) for s, g in zip(shown, got, strict=True)
        ):
            diff = "\n".join(difflib.unified_diff(shown, got, "shown", "printed", lineterm=""))
            wrong.append(f"{document}:{example.line}: $ {example.command}\n{diff}")
    assert not wrong, "\n\n".join(wrong)
