"""The web client's message catalogues: every key is in every language with the same
placeholders, every key the client's code and page name is in both catalogues, the
page's own words are the English catalogue's, and no English sentence is left in the
code of the start, lobby, players and developers screens."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "scopa" / "api" / "static"
CATALOGUES = {path.stem: json.loads(path.read_text()) for path in (STATIC / "i18n").glob("*.json")}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# t("key"), tn("key", n), and keys built from a literal prefix: t(`card.rank.${rank}`).
CALL = re.compile(r"""\btn?\(\s*["']([\w.-]+)["']""")
PREFIX = re.compile(r"""\btn?\(\s*`([\w.-]+)\$\{""")
IN_PAGE = re.compile(r'data-i18n="([\w.-]+)"')
IN_ATTRS = re.compile(r'data-i18n-attr="([^"]+)"')


def sources() -> list[str]:
    files = [*(STATIC / "js").glob("*.js"), *STATIC.glob("*.html")]
    return [path.read_text() for path in files]


def used_keys() -> tuple[set[str], set[str]]:
    keys: set[str] = set()
    prefixes: set[str] = set()
    for text in sources():
        keys |= set(CALL.findall(text)) | set(IN_PAGE.findall(text))
        for attrs in IN_ATTRS.findall(text):
            keys |= {pair.split(":")[1].strip() for pair in attrs.split(";") if ":" in pair}
        prefixes |= set(PREFIX.findall(text))
    return keys, prefixes


def test_there_are_english_and_italian_catalogues() -> None:
    assert {"en", "it"} <= set(CATALOGUES)


def test_every_key_is_in_every_language_with_the_same_placeholders() -> None:
    english = CATALOGUES["en"]
    for language, messages in CATALOGUES.items():
        assert set(messages) == set(english), language
        for key, text in messages.items():
            assert text.strip(), (language, key)
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[key])), (
                language,
                key,
            )


def test_every_key_the_client_names_is_in_the_catalogues() -> None:
    keys, prefixes = used_keys()
    known = set(CATALOGUES["en"])
    plural = {key.rsplit(".", 1)[0] for key in known if key.endswith((".one", ".other"))}
    assert keys, "the client names no message"
    assert sorted(keys - known - plural) == []
    assert [prefix for prefix in prefixes if not any(key.startswith(prefix) for key in known)] == []


def test_every_key_in_the_catalogues_is_used() -> None:
    keys, prefixes = used_keys()
    for key in CATALOGUES["en"]:
        base = key.rsplit(".", 1)[0] if key.endswith((".one", ".other")) else key
        assert base in keys or any(key.startswith(prefix) for prefix in prefixes), key


# Every module of the client: the frame's, the screens' and the match table's.
MODULES = sorted(path.name for path in (STATIC / "js").glob("*.js"))
STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`""")
WORDS = re.compile(r"[A-Za-z][a-z']+(?:\s+[A-Za-z][a-z']+)+")
# A few short English words that, with another word, make a phrase a player would read.
ENGLISH = re.compile(
    r"\b(the|a|an|to|of|is|no|and|or|you|your|this|that|with|for|in|on|at|it|be|may)\b", re.I
)
# Words that are not sentences: HTTP's own, the keyboard's key names (a keycap reads
# "Esc" in either language), and each language's name in that language.
NOT_SENTENCES = {"Bearer", "Enter", "Escape", "Esc", "English", "Italiano"}


def sentences_in(source: str) -> list[str]:
    """The string literals of a module that read as English to a player: two words or
    more with a short English word among them, or a capitalised word first. Comments
    and console lines are for developers and are left out."""
    found = []
    for line in source.splitlines():
        if line.lstrip().startswith(("//", "/*", "*")) or "console." in line:
            continue
        for literal in STRING.findall(re.sub(r"\s//.*$", "", line)):
            text = re.sub(r"\$\{[^}]*\}", " ", literal[1:-1]).strip()
            phrase = WORDS.search(text)
            first = re.match(r"[A-Z][a-z]{2,}(?![\w-])", text)
            if (phrase and ENGLISH.search(phrase.group())) or (
                first and first.group() not in NOT_SENTENCES
            ):
                found.append(literal)
    return found


def test_no_english_sentence_is_left_in_the_clients_modules() -> None:
    assert "render.js" in MODULES
    for name in MODULES:
        assert sentences_in((STATIC / "js" / name).read_text()) == [], name


def test_the_scan_finds_a_sentence_left_in_code() -> None:
    assert sentences_in('say(el, "No match is waiting for players.");') != []
    assert sentences_in("h('button', {}, 'Accept')") != []
    assert sentences_in("return `Against ${rivals}: ${outcome}`;") != []
    assert sentences_in('h("li", { class: "badge seeded" }, t("lobby.seeded"))') == []


class PageText(HTMLParser):
    """The words of index.html: each text with the key of the element around it (None when
    it has none), and each data-i18n element's text."""

    SKIP = {"script", "style", "title"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str | None]] = []
        self.loose: list[str] = []
        self.keyed: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in {"input", "meta", "link", "br", "img"}:
            self.stack.append((tag, dict(attrs).get("data-i18n")))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if not text or not self.stack or self.stack[-1][0] in self.SKIP:
            return
        key = self.stack[-1][1]
        if key:
            self.keyed.setdefault(key, []).append(text)
        # Suits, arrows, "#" and a name are the same in every language.
        elif re.search(r"[A-Za-z]{2,}", text) and text != "Scopa" and not text.startswith("/"):
            self.loose.append(text)


def page_text() -> PageText:
    parser = PageText()
    parser.feed((STATIC / "index.html").read_text())
    return parser


def test_every_word_of_the_page_has_a_key() -> None:
    assert page_text().loose == []


def test_the_page_reads_as_the_english_catalogue_before_the_script_runs() -> None:
    english = CATALOGUES["en"]
    keyed = page_text().keyed
    assert keyed
    for key, texts in keyed.items():
        for text in texts:
            assert text == english[key], key


def test_every_key_the_client_names_is_in_both_catalogues() -> None:
    keys, _ = used_keys()
    for language in ("en", "it"):
        known = set(CATALOGUES[language])
        plural = {key.rsplit(".", 1)[0] for key in known if key.endswith((".one", ".other"))}
        assert sorted(keys - known - plural) == [], language
