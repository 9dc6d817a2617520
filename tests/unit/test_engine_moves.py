"""The move value: canonical, hashable, and one text form that parses back."""

from __future__ import annotations

import random

import pytest

from scopa.domain.cards import DECK, NAME
from scopa.domain.deal import Deal
from scopa.domain.errors import MoveNotationError
from scopa.domain.moves import Move
from scopa.domain.rules import make_rules
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


def test_every_move_the_engine_offers_is_canonical_and_reads_back() -> None:
    """Random deals in every capture variant: captures ascending, text round trips."""
    seen = 0
    for k in range(60):
        rules = make_rules(
            capture="fifteen" if k % 3 == 2 else "match",
            ace_sweeps="sweep" if k % 3 == 1 else "off",
        )
        deck = list(DECK)
        random.Random(k).shuffle(deck)
        deal = Deal.open(rules, 2, k % 2, deck)
        choices = random.Random(-k)
        while not deal.is_over():
            moves = deal.legal_moves()
            assert len(set(moves)) == len(moves)
            for move in moves:
                assert list(move.capture) == sorted(move.capture)
                assert Move.parse(str(move)) == move
                assert str(move).startswith(NAME[move.card] + ":")
                seen += 1
            deal.play(choices.choice(moves))
    assert seen > 1000
