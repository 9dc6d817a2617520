"""The web client's message catalogues: every key is in every language with the same
placeholders, and every key the client's code and page name is in the catalogues."""

from __future__ import annotations

import json
import re
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
