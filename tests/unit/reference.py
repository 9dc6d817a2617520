"""A slow, literal model of docs/rules.md, written apart from the engine to check it against.

It works on card names ("7D"), enumerates every subset of the table, and scores a deal
line by line from the rules' table. Nothing here imports the engine except the rules
options, so a wrong idea in the engine does not carry over.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from scopa.domain.rules import Rules

RANKS = "A234567JQK"
SUITS = "CDHS"
ALL_CARDS = [r + s for s in SUITS for r in RANKS]
PRIMIERA_OF_RANK = {"7": 21, "6": 18, "A": 16, "5": 15, "4": 14, "3": 13, "2": 12}
DIAMOND_RUN = [r + "D" for r in RANKS]  # A 2 3, then 4 5 6 7 J Q K
MASK64 = (1 << 64) - 1


def value(card: str) -> int:
    return RANKS.index(card[0]) + 1


def primiera_value(card: str) -> int:
    return PRIMIERA_OF_RANK.get(card[0], 10)


class SplitMix64:
    """Steele, Lea and Flood's generator, Lemire's bounded draw, Durstenfeld's shuffle."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        while True:
            product = self.next64() * n
            if product & MASK64 >= (1 << 64) % n:
                return product >> 64

    def shuffle(self, items: list[str]) -> None:
        for i in reversed(range(1, len(items))):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def captures(table: Sequence[str], card: str, rules: Rules) -> list[frozenset[str]]:
    """Every set of table cards ``card`` may take; empty when it can take nothing."""
    v = value(card)
    if rules.ace_sweeps != "off" and v == 1 and table and all(value(c) != 1 for c in table):
        return [frozenset(table)]
    groups = [frozenset(g) for r in range(1, len(table) + 1) for g in combinations(table, r)]
    if rules.capture == "fifteen":
        return [g for g in groups if v + sum(value(c) for c in g) == 15]
    singles = [g for g in groups if len(g) == 1 and value(next(iter(g))) == v]
    if singles:
        return singles
    return [g for g in groups if len(g) >= 2 and sum(value(c) for c in g) == v]


def team(seat: int, players: int) -> int:
    return seat % 2 if players == 4 else seat


class Deal:
    """One deal by the book: dealing, moves with their sweep flags, leftovers, score."""

    def __init__(self, rules: Rules, players: int, dealer: int, deck: Sequence[str]) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.stock = list(deck)
        self.hands: list[list[str]] = [[] for _ in range(players)]
        if rules.deal == "scopone":
            # Scopone: the whole deck, ten cards to each of the four, none face up; the
            # player on the dealer's right (the next seat, as play runs) leads.
            self.deal_cards(len(ALL_CARDS) // players)
            self.table: list[str] = []
        else:
            self.deal_packet()
            self.table = self.stock[:4]
            del self.stock[:4]
        self.turn = (dealer + 1) % players
        self.piles: list[list[str]] = [[], []]
        self.sweeps = [0, 0]
        self.last_capturer: int | None = None

    def deal_packet(self) -> None:
        self.deal_cards(self.rules.hand_size)

    def deal_cards(self, each: int) -> None:
        seat = self.dealer
        for _ in range(self.players * each):
            seat = (seat + 1) % self.players
            self.hands[seat].append(self.stock.pop(0))

    def void(self) -> bool:
        return sum(c[0] == "K" for c in self.table) >= 3

    def last_play(self) -> bool:
        return not self.stock and sum(len(h) for h in self.hands) == 1

    def moves(self) -> set[tuple[str, frozenset[str], bool]]:
        found = set()
        for card in self.hands[self.turn]:
            for taken in captures(self.table, card, self.rules) or [frozenset()]:
                found.add((card, taken, self.sweeps_with(card, taken)))
        return found

    def sweeps_with(self, card: str, taken: frozenset[str]) -> bool:
        if not taken or taken != set(self.table) or self.last_play():
            return False
        return not (self.rules.ace_sweeps == "no_point" and value(card) == 1)

    def play(self, card: str, taken: frozenset[str]) -> bool:
        sweep = self.sweeps_with(card, taken)
        self.hands[self.turn].remove(card)
        if taken:
            t = team(self.turn, self.players)
            self.table = [c for c in self.table if c not in taken]
            self.piles[t] += [*taken, card]
            self.sweeps[t] += sweep
            self.last_capturer = t
        else:
            self.table.append(card)
        self.turn = (self.turn + 1) % self.players
        if not any(self.hands) and self.stock:
            self.deal_packet()
        return sweep

    def over(self) -> bool:
        return not self.stock and not any(self.hands)

    def finish(self) -> tuple[int | None, list[str]]:
        left = self.table
        self.table = []
        if self.last_capturer is not None:
            self.piles[self.last_capturer] += left
        return self.last_capturer, left


def primiera(pile: Sequence[str]) -> int | None:
    best: dict[str, int] = {}
    for card in pile:
        best[card[1]] = max(best.get(card[1], 0), primiera_value(card))
    return sum(best.values()) if len(best) == 4 else None


def diamond_sequence(pile: Sequence[str]) -> int:
    run = 0
    while run < 10 and DIAMOND_RUN[run] in pile:
        run += 1
    return run if run >= 3 else 0


def score(
    rules: Rules, piles: Sequence[Sequence[str]], sweeps: Sequence[int]
) -> list[dict[str, Any]]:
    """Each team's facts and points for a finished deal, read straight off docs/rules.md."""
    out = []
    for t in (0, 1):
        mine, theirs = piles[t], piles[1 - t]
        diamonds = sum(c[1] == "D" for c in mine)
        prim, rival = primiera(mine), primiera(theirs)
        points = {
            "sweeps": sweeps[t],
            "cards": int(len(mine) >= 21),
            "diamonds": int(diamonds >= 6),
            "settebello": int("7D" in mine),
            "primiera": int(prim is not None and (rival is None or prim > rival)),
            "king_of_diamonds": int(rules.king_of_diamonds and "KD" in mine),
            "diamond_sequence": diamond_sequence(mine) if rules.diamond_sequence else 0,
        }
        out.append(
            {
                "cards": len(mine),
                "diamonds": diamonds,
                "settebello": "7D" in mine,
                "primiera": prim,
                "sweeps": sweeps[t],
                "king_of_diamonds": "KD" in mine,
                "diamond_sequence": diamond_sequence(mine),
                "points": points,
                "total": sum(points.values()),
            }
        )
    return out


class Match:
    """A whole match by the book, driven by the same moves as the engine."""

    def __init__(
        self,
        rules: Rules,
        players: int,
        seed: int,
        decks: Sequence[Sequence[str]] = (),
        first_dealer: int | None = None,
    ) -> None:
        self.rules = rules
        self.players = players
        self.rng = SplitMix64(seed)
        self.decks = [list(d) for d in decks]
        self.dealer = first_dealer if first_dealer is not None else self.rng.below(players)
        self.number = 0
        self.scores = [0, 0]
        self.deal_scores: list[list[dict[str, Any]]] = []
        self.scored_piles: list[list[list[str]]] = []
        self.redeals: list[list[str]] = []
        self.winner: int | None = None
        self.start()

    def start(self) -> None:
        self.number += 1
        if self.number <= len(self.decks):
            deck = self.decks[self.number - 1]
        else:
            deck = ALL_CARDS[:]
            self.rng.shuffle(deck)
        deal = Deal(self.rules, self.players, self.dealer, deck)
        while deal.void():
            self.redeals.append(deal.table)
            self.rng.shuffle(deck)
            deal = Deal(self.rules, self.players, self.dealer, deck)
        self.deal = deal

    def play(self, card: str, taken: frozenset[str]) -> bool:
        sweep = self.deal.play(card, taken)
        if self.deal.over():
            self.deal.finish()
            result = score(self.rules, self.deal.piles, self.deal.sweeps)
            self.scores = [self.scores[t] + result[t]["total"] for t in (0, 1)]
            self.deal_scores.append(result)
            self.scored_piles.append(self.deal.piles)
            high = max(self.scores)
            if high >= self.rules.target and self.scores[0] != self.scores[1]:
                self.winner = self.scores.index(high)
            else:
                self.dealer = (self.dealer + 1) % self.players
                self.start()
        return sweep
