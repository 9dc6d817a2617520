"""A move: the card played and the table cards it takes, the one value for a move
everywhere (the engine, the AI, views, hints and tests).

Cards are ints inside (``domain.cards``). ``capture`` is sorted ascending, so two moves
taking the same cards are equal and hash alike, whatever order the cards were named in;
``()`` lays the card on the table. The text form is the card, a colon, and the cards
taken joined by ``+``: ``7D:3C+4H``, or ``7D:`` for a card laid down; ``Move.parse``
reads it back. Whether a move scores a sweep is not part of it, since the same move may
sweep on one table and not on another (the deal's last play never does): the engine
answers that beside the move (``Deal.is_sweep``).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from scopa.domain.cards import NAME, parse_card
from scopa.domain.errors import CardNotationError, MoveNotationError


class Move(msgspec.Struct, frozen=True, gc=False):
    card: int
    # Ascending. Build a move with ``Move.of`` unless the cards are sorted already.
    capture: tuple[int, ...] = ()

    @classmethod
    def of(cls, card: int, capture: Iterable[int] = ()) -> Move:
        return cls(card, tuple(sorted(capture)))

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move of a text form such as ``7D:3C+4H`` or ``7D:``."""
        card, colon, taken = text.partition(":")
        try:
            capture = [parse_card(c) for c in taken.split("+")] if taken else []
            move = cls.of(parse_card(card), capture)
        except CardNotationError as exc:
            raise MoveNotationError(text) from exc
        if not colon or len(set(move.capture)) != len(move.capture):
            raise MoveNotationError(text)
        return move

    def taken_from(self, table: Iterable[int]) -> tuple[int, ...]:
        """The cards taken in ``table``'s order, as the table and card_played show them."""
        return tuple(c for c in table if c in self.capture)

    def __str__(self) -> str:
        return NAME[self.card] + ":" + "+".join([NAME[c] for c in self.capture])
