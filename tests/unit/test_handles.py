"""The one fold of handles and names, and what the server keeps: every name its web client
and its views show for a seat that is not a person's is refused, as are look-alikes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scopa.domain.ai import LEVELS
from scopa.service.handles import DELETED, handle_key, reserved

I18N = Path(__file__).resolve().parents[2] / "scopa" / "api" / "static" / "i18n" / "en.json"


def _shown_for_the_server() -> list[str]:
    """The English client's names for AI seats and open seats, each level filled in."""
    strings = json.loads(I18N.read_text())
    shown = [strings["players.rival.open"].removeprefix("an ")]
    for level in LEVELS:
        shown.append(strings[f"lobby.seat.ai.{level}"])
        shown.append(strings[f"players.rival.{level}"])
        shown.append(strings["table.seat.computer"].replace("{level}", level))
    return shown


@pytest.mark.parametrize("name", [DELETED, "open", *_shown_for_the_server()])
def test_every_name_the_server_shows_of_its_own_is_kept(name: str) -> None:
    assert reserved(name)
    assert reserved(name.upper().replace("E", "3").replace(" ", "_"))


@pytest.mark.parametrize(
    ("one", "other"),
    [("samuel", "5amuel"), ("samuel", "sarnuel"), ("samuel", "s4muel"), ("samuel", "_samu-el_"),
     ("tobias", "70814s"), ("Ada", "ADA"), ("lol", "1oI"), ("Éloïse", "eloise")],
)  # fmt: skip
def test_look_alikes_fold_to_one_key(one: str, other: str) -> None:
    assert handle_key(one) == handle_key(other)


@pytest.mark.parametrize("name", ["Ada", "Al", "Hal", "Expert Ada", "Samuel", "Opener"])
def test_a_name_of_a_person_is_not_kept(name: str) -> None:
    assert not reserved(name)
