"""One deal in play: the fast, mutable core the match, the AI and the benchmarks share.

Everything here trusts its caller (moves come from ``legal_moves``); validation and events
live in ``match.py``, the capture and sweep rules in ``captures.py``. Cards are ints,
hands and the table keep their order.
"""

from __future__ import annotations

from scopa.domain.captures import WEIGHT, CaptureRules, capture_rules, is_last_play, table_key
from scopa.domain.cards import DECK, VALUE
from scopa.domain.moves import Move
from scopa.domain.rules import Rules

TABLE_CARDS = 4  # laid face up at the start of a deal; the rest of the deck goes to hands


def opening_cards(rules: Rules, players: int) -> tuple[int, int]:
    """How many cards each seat is dealt first, and how many go face up on the table:
    scopone deals the whole deck to the hands and none to the table."""
    if rules.deal == "scopone":
        return len(DECK) // players, 0
    return rules.hand_size, TABLE_CARDS


def team_of(seat: int, players: int) -> int:
    return seat % 2 if players == 4 else seat


class Deal:
    __slots__ = (
        "players",
        "hand_size",
        "captures",
        "dealer",
        "turn",
        "hands",
        "table",
        "values",
        "key",
        "stock",
        "piles",
        "sweeps",
        "last_capturer",
    )

    def __init__(
        self,
        rules: Rules,
        players: int,
        dealer: int,
        turn: int,
        hands: list[list[int]],
        table: list[int],
        stock: list[int],
        piles: list[list[int]],
        sweeps: list[int],
        last_capturer: int | None,
    ) -> None:
        self.players = players
        self.hand_size = rules.hand_size
        self.captures: CaptureRules = capture_rules(rules)
        self.dealer = dealer
        self.turn = turn
        self.hands = hands
        self.table = table
        self.values = [VALUE[c] for c in table]
        self.key = table_key(self.values)
        self.stock = stock
        self.piles = piles
        self.sweeps = sweeps
        self.last_capturer = last_capturer

    @classmethod
    def open(cls, rules: Rules, players: int, dealer: int, deck: list[int]) -> Deal:
        """Deal ``deck`` (top first) as docs/rules.md says: hands one card at a time, then 4 up
        (scopone: the whole deck to the hands, nothing up, no stock)."""
        held, up = opening_cards(rules, players)
        n = players * held
        # One card at a time from the seat after the dealer: seat s gets every players-th card.
        first = dealer + 1
        hands = [deck[(seat - first) % players : n : players] for seat in range(players)]
        teams = 2
        return cls(
            rules,
            players,
            dealer,
            (dealer + 1) % players,
            hands,
            deck[n : n + up],
            deck[n + up :],
            [[] for _ in range(teams)],
            [0] * teams,
            None,
        )

    def clone(self) -> Deal:
        other = Deal.__new__(Deal)
        other.players = self.players
        other.hand_size = self.hand_size
        other.captures = self.captures
        other.dealer = self.dealer
        other.turn = self.turn
        other.hands = [h[:] for h in self.hands]
        other.table = self.table[:]
        other.values = self.values[:]
        other.key = self.key
        other.stock = self.stock[:]
        other.piles = [p[:] for p in self.piles]
        other.sweeps = self.sweeps[:]
        other.last_capturer = self.last_capturer
        return other

    def is_void(self) -> bool:
        """Three or four kings among the opening table cards void the deal."""
        return self.values.count(10) >= 3

    def options(self, card: int) -> list[Move]:
        """The captures ``card`` may make now; empty if it takes nothing."""
        return self.captures.captures(card, self.table, self.values, self.key)

    def legal_moves(self) -> list[Move]:
        return self.captures.legal_moves(self.hands[self.turn], self.table, self.values, self.key)

    def is_last_play(self) -> bool:
        return is_last_play(len(self.stock) + sum(map(len, self.hands)))

    def is_sweep(self, move: Move) -> bool:
        return self.captures.is_sweep(
            VALUE[move.card], len(move.capture), len(self.values), self.is_last_play()
        )

    def play(self, move: Move) -> tuple[list[int], bool]:
        """Play a legal move; returns the cards taken, in table order, and whether it
        scored a sweep.

        Deals the next packet when every hand is empty and the stock is not.
        """
        card, capture = move.card, move.capture
        seat = self.turn
        players = self.players
        sweep = bool(capture) and self.is_sweep(move)
        taken: list[int] = []
        self.hands[seat].remove(card)
        table = self.table
        values = self.values
        if capture:
            if len(capture) == len(table):
                taken = table[:]
                table.clear()
                values.clear()
                self.key = 0
            else:
                taken = [c for c in table if c in capture]
                for c in capture:
                    i = table.index(c)
                    del table[i]
                    self.key -= WEIGHT[values.pop(i)]
            team = team_of(seat, players)
            pile = self.piles[team]
            pile.extend(taken)
            pile.append(card)
            self.last_capturer = team
            if sweep:
                self.sweeps[team] += 1
        else:
            v = VALUE[card]
            table.append(card)
            values.append(v)
            self.key += WEIGHT[v]
        self.turn = nxt = (seat + 1) % players
        if not self.hands[nxt] and self.stock:
            self.deal_packet()
        return taken, sweep

    def deal_packet(self) -> None:
        stock = self.stock
        players = self.players
        n = players * self.hand_size
        first = self.dealer + 1
        for seat, hand in enumerate(self.hands):
            hand.extend(stock[(seat - first) % players : n : players])
        del stock[:n]

    def is_over(self) -> bool:
        return not self.stock and not self.hands[self.turn]

    def take_leftovers(self) -> tuple[int | None, list[int]]:
        """At the deal's end the table goes to the last capturer (to nobody if none)."""
        left = self.table[:]
        if left and self.last_capturer is not None:
            self.piles[self.last_capturer].extend(left)
        self.table.clear()
        self.values.clear()
        self.key = 0
        return self.last_capturer, left
