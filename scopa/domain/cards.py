"""The 40-card deck.

Inside the engine a card is an int 0..39: ``suit * 10 + rank_index``. The wire and the
views use the notation of docs/rules.md (rank then suit: ``7D``, ``AS``, ``KC``); nothing else
parses.
"""

from __future__ import annotations

from collections.abc import Iterable

from scopa.domain.errors import CardNotationError

RANKS = "A234567JQK"
SUITS = "CDHS"
DIAMONDS = SUITS.index("D")

DECK: tuple[int, ...] = tuple(range(40))

NAME: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_BY_NAME: dict[str, int] = {name: card for card, name in enumerate(NAME)}

# Capture value: A=1, 2..7 face value, J=8, Q=9, K=10.
VALUE: tuple[int, ...] = tuple(card % 10 + 1 for card in DECK)
SUIT: tuple[int, ...] = tuple(card // 10 for card in DECK)
_PRIMIERA_BY_RANK = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
PRIMIERA: tuple[int, ...] = tuple(_PRIMIERA_BY_RANK[card % 10] for card in DECK)
IS_DIAMOND: tuple[bool, ...] = tuple(suit == DIAMONDS for suit in SUIT)

SETTEBELLO = _BY_NAME["7D"]
KING_OF_DIAMONDS = _BY_NAME["KD"]
# The diamond run of the napola, in scoring order: A 2 3, then 4 5 6 7 J Q K.
DIAMOND_RUN: tuple[int, ...] = tuple(DIAMONDS * 10 + r for r in range(10))


def parse_card(text: str) -> int:
    card = _BY_NAME.get(text) if isinstance(text, str) else None
    if card is None:
        raise CardNotationError(text)
    return card


def parse_cards(texts: Iterable[str]) -> list[int]:
    return [parse_card(t) for t in texts]


def names(cards: Iterable[int]) -> list[str]:
    return [NAME[c] for c in cards]
