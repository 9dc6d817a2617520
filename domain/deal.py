"""One deal in play: the fast, mutable core the match, the AI and the benchmarks share.

Everything here trusts its caller (moves come from ``legal_moves``); validation and events
live in ``match.py``. Cards are ints, hands and the table keep their order.
"""

from __future__ import annotations

from domain.captures import OPTIONS, WEIGHT, Positions, Take, positions, table_key
from domain.cards import VALUE
from domain.rules import Rules

Move = tuple[int, Positions]  # (card, table positions taken)
TABLE_CARDS = 4  # laid face up at the start of a deal; the rest of the deck goes to hands


def deal_order(dealer: int, players: int, hand_size: int) -> list[int]:
    """The seat that receives each of the next ``players * hand_size`` cards."""
    return [(dealer + 1 + j) % players for j in range(players * hand_size)]


def team_of(seat: int, players: int) -> int:
    return seat % 2 if players == 4 else seat


class Deal:
    __slots__ = (
        "players",
        "hand_size",
        "fifteen",
        "ace_mode",
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
        self.fifteen = rules.capture == "fifteen"
        # 0: aces are ordinary; 1: ace sweeps score; 2: no capture by an ace scores a sweep.
        self.ace_mode = ("off", "sweep", "no_point").index(rules.ace_sweeps)
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
        """Deal ``deck`` (top first) as RULES.md says: hands one card at a time, then 4 up."""
        n = players * rules.hand_size
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
            deck[n : n + TABLE_CARDS],
            deck[n + TABLE_CARDS :],
            [[] for _ in range(teams)],
            [0] * teams,
            None,
        )

    def clone(self) -> Deal:
        other = Deal.__new__(Deal)
        other.players = self.players
        other.hand_size = self.hand_size
        other.fifteen = self.fifteen
        other.ace_mode = self.ace_mode
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

    def options(self, card: int) -> list[Positions]:
        """The captures ``card`` may make now, as table positions; empty if none."""
        v = VALUE[card]
        takes, moves = OPTIONS[self.fifteen][self.key]
        return self._options(v, takes[v], moves[v])

    def _options(self, v: int, takes: tuple[Take, ...], moves: int) -> list[Positions]:
        values = self.values
        if v == 1 and self.ace_mode and values and 1 not in values:
            return [tuple(range(len(values)))]
        if not takes:
            return []
        if moves == 1:
            # One choice means every table card of the values taken goes: no positions walk.
            take = takes[0]
            if len(take) == 1:
                return [(values.index(take[0]),)]
            return [tuple([i for i, x in enumerate(values) if x in take])]
        return [p for take in takes for p in positions(values, take)]

    def legal_moves(self) -> list[Move]:
        takes, moves = OPTIONS[self.fifteen][self.key]
        found: list[Move] = []
        for card in self.hands[self.turn]:
            v = VALUE[card]
            # Without a take an ace may still sweep the table; any other card just stays.
            if takes[v] or v == 1:
                options = self._options(v, takes[v], moves[v])
                if options:
                    found.extend([(card, p) for p in options])
                    continue
            found.append((card, ()))
        return found

    def is_last_play(self) -> bool:
        return (
            not self.stock
            and len(self.hands[self.turn]) == 1
            and not self.hands[(self.turn + 1) % self.players]
        )

    def is_sweep(self, card: int, where: Positions) -> bool:
        return (
            len(where) == len(self.values)
            and bool(where)
            and not (self.ace_mode == 2 and VALUE[card] == 1)
            and not self.is_last_play()
        )

    def play(self, card: int, where: Positions) -> tuple[list[int], bool]:
        """Play a legal move; returns the cards taken and whether it scored a sweep.

        Deals the next packet when every hand is empty and the stock is not.
        """
        seat = self.turn
        players = self.players
        sweep = False
        taken: list[int] = []
        if where:
            sweep = self.is_sweep(card, where)
            table = self.table
            values = self.values
            taken = [table[i] for i in where]
            if len(where) == len(table):
                table.clear()
                values.clear()
                self.key = 0
            else:
                for i in reversed(where):
                    del table[i]
                    self.key -= WEIGHT[values.pop(i)]
            team = seat % 2 if players == 4 else seat
            pile = self.piles[team]
            pile.extend(taken)
            pile.append(card)
            self.last_capturer = team
            if sweep:
                self.sweeps[team] += 1
            self.hands[seat].remove(card)
        else:
            self.hands[seat].remove(card)
            v = VALUE[card]
            self.table.append(card)
            self.values.append(v)
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
