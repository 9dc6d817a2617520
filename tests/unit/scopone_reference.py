"""Scopone scientifico by the published rules, written apart from the engine and from
``reference.py`` to check both against.

The rules are those of Chitarrella's "Regole dello Scopone" (1750) as the Italian card
federations still play them: four players in two partnerships sitting opposite, the whole
40-card deck dealt, ten cards each, nothing face up; the player on the dealer's right
leads and play goes on to the right. A card takes a table card of its rank if there is
one (the "presa" of one card comes first), else a set of cards adding up to its rank;
taking when one can is compulsory for the card played. Clearing the table is a scopa,
except with the deal's very last card. The last team to take gets what is left. A deal
scores one point each for cards (21 or more of 40), coins (6 or more of 10), the
settebello, the primiera and each scopa; the napola (A-2-3 of coins, and each further coin
in order) is the common house bonus. No public Scopone engine can be installed from a
package registry, so this model stands in for one.

Cards here are (rank, suit) pairs, rank 1..10 and suit one of "bcds" (bastoni, coppe,
denari, spade): nothing is shared with the engine's encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Card = tuple[int, str]
DENARI = "d"
# Chitarrella's primiera values, by rank.
PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}
# The engine's letters for the ranks and for the suits the Italian ones stand for.
RANK_LETTER = "A234567JQK"
SUIT_OF_LETTER = {"C": "b", "H": "c", "D": "d", "S": "s"}
LETTER_OF_SUIT = {v: k for k, v in SUIT_OF_LETTER.items()}


def from_name(name: str) -> Card:
    return RANK_LETTER.index(name[0]) + 1, SUIT_OF_LETTER[name[1]]


def to_name(card: Card) -> str:
    return RANK_LETTER[card[0] - 1] + LETTER_OF_SUIT[card[1]]


def takes(table: Sequence[Card], card: Card, aces_take_all: bool) -> list[frozenset[Card]]:
    """Every set of table cards ``card`` may take, by bitmask over the table; empty: none.
    ``aces_take_all``: the "scopa d'assi" house rule (an ace on a table without an ace
    takes it all)."""
    rank = card[0]
    if aces_take_all and rank == 1 and table and all(c[0] != 1 for c in table):
        return [frozenset(table)]
    same = [frozenset([c]) for c in table if c[0] == rank]
    if same:
        return same
    found = []
    for mask in range(1, 1 << len(table)):
        chosen = [c for i, c in enumerate(table) if mask >> i & 1]
        if len(chosen) > 1 and sum(c[0] for c in chosen) == rank:
            found.append(frozenset(chosen))
    return found


class Hand:
    """One deal of Scopone ("una mano"): ten cards each, the table empty."""

    def __init__(self, deck: Sequence[Card], dealer: int, aces: str, last_scopa: bool) -> None:
        # Dealt one card at a time round the table, from the player after the dealer.
        self.hands: list[list[Card]] = [[] for _ in range(4)]
        for i, card in enumerate(deck):
            self.hands[(dealer + 1 + i) % 4].append(card)
        self.table: list[Card] = []
        self.player = (dealer + 1) % 4
        self.aces = aces
        self.last_scopa = last_scopa  # whether the deal's last card may score a scopa
        self.taken: list[list[Card]] = [[], []]
        self.scope = [0, 0]
        self.last_taker: int | None = None

    def cards_left(self) -> int:
        return sum(len(h) for h in self.hands)

    def choices(self) -> set[tuple[Card, frozenset[Card], bool]]:
        out = set()
        for card in self.hands[self.player]:
            for taken in takes(self.table, card, self.aces != "off") or [frozenset()]:
                out.add((card, taken, self.is_scopa(card, taken)))
        return out

    def is_scopa(self, card: Card, taken: frozenset[Card]) -> bool:
        if not taken or len(taken) != len(self.table):
            return False
        if self.cards_left() == 1 and not self.last_scopa:
            return False
        return not (card[0] == 1 and self.aces == "no_point")

    def play(self, card: Card, taken: frozenset[Card]) -> None:
        side = self.player % 2
        if self.is_scopa(card, taken):
            self.scope[side] += 1
        self.hands[self.player].remove(card)
        if taken:
            self.table = [c for c in self.table if c not in taken]
            self.taken[side].extend([card, *taken])
            self.last_taker = side
        else:
            self.table.append(card)
        self.player = (self.player + 1) % 4

    def over(self) -> bool:
        return self.cards_left() == 0

    def sweep_up(self) -> None:
        if self.last_taker is not None:
            self.taken[self.last_taker].extend(self.table)
        self.table = []


def primiera(cards: Iterable[Card]) -> int | None:
    best: dict[str, int] = {}
    for rank, suit in cards:
        best[suit] = max(best.get(suit, 0), PRIMIERA[rank])
    return sum(best.values()) if len(best) == 4 else None


def napola(cards: Iterable[Card]) -> int:
    coins = {rank for rank, suit in cards if suit == DENARI}
    run = 0
    while run + 1 in coins:
        run += 1
    return run if run >= 3 else 0


def points(taken: Sequence[Sequence[Card]], scope: Sequence[int], with_napola: bool) -> list[int]:
    """Each side's points for the deal."""
    out = []
    for side in (0, 1):
        mine, theirs = taken[side], taken[1 - side]
        p, q = primiera(mine), primiera(theirs)
        out.append(
            scope[side]
            + (len(mine) > 20)
            + (sum(s == DENARI for _, s in mine) > 5)
            + ((7, DENARI) in mine)
            + (p is not None and (q is None or p > q))
            + (napola(mine) if with_napola else 0)
        )
    return out
