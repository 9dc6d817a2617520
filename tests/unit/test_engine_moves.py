"""The move value: canonical, hashable, and one text form that parses back."""

from __future__ import annotations

import pytest

from domain.errors import MoveNotationError
from domain.moves import Move
from tests.unit.build import cards


def test_the_text_form_names_the_card_then_the_cards_taken() -> None:
    assert str(Move.of(cards("7D")[0], cards("4H 3C"))) == "7D:3C+4H"
    assert str(Move(cards("7D")[0])) == "7D:"
    assert Move.parse("7D:4H+3C") == Move.parse("7D:3C+4H") == Move.of(16, [2, 23])
    assert Move.parse("7D:") == Move(16, ())


def test_the_order_cards_are_named_in_does_not_make_another_move() -> None:
    one, other = Move.of(16, [23, 2, 11]), Move.of(16, [11, 23, 2])
    assert one == other
    assert hash(one) == hash(other)
    assert len({one, other, Move(16, (2, 11, 23))}) == 1
    assert one.capture == (2, 11, 23)
    assert Move(16) != Move.of(16, [2])


@pytest.mark.parametrize(
    "text",
    ["7D", "", ":", ":3C", "7D:3C+", "7D:+3C", "7D:3C+3C", "7d:3C", "7D:3C:4H", "7D: 3C", "XX:"],
)
def test_what_is_not_a_move_is_refused(text: str) -> None:
    with pytest.raises(MoveNotationError) as refused:
        Move.parse(text)
    assert isinstance(refused.value, ValueError)
    assert "7D:3C+4H" in str(refused.value)
