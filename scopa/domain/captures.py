"""The capture and sweep rules of docs/rules.md, written once: what a played card may take,
and when taking scores a sweep. ``Deal``, the AI's knowledge and both playouts ask here.

What a card may take depends only on the multiset of values on the table, so the answer
is computed once per multiset and cached. The multiset is one int, ``key``: three bits of
count per value (``WEIGHT[v]``), kept up to date as cards come and go. For one variant's
``CaptureRules``, ``rules.tables[key].takes[v]`` lists, for a played card of value
``v``, each capture as a sorted tuple of the values taken; ``capture_positions`` turns
them into the table positions they can mean (two 2s on the table make two different
moves). ``moves[v]`` counts those, so a playout can draw a move without listing them all,
and ``clears`` has bit ``v`` set when a card of value ``v`` takes the whole table.
``CaptureRules.legal_moves`` lists a hand's moves from them, for ``Deal`` and the AI's
``candidates`` alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product
from math import comb
from typing import NamedTuple

from scopa.domain.cards import VALUE
from scopa.domain.moves import Move
from scopa.domain.rules import Rules

Positions = tuple[int, ...]
Take = tuple[int, ...]  # the values taken, ascending
ByValue = tuple[tuple[Take, ...], ...]  # indexed by played value 0..10 (0 unused)

WEIGHT: tuple[int, ...] = (0, *(1 << (3 * (v - 1)) for v in range(1, 11)))
ACE = 1


class TableOptions(NamedTuple):
    takes: ByValue
    # Per played value: how many moves it has (position choices, or 1 when it stays).
    moves: tuple[int, ...]
    clears: int  # bit v: a card of value v takes every card on the table


def table_key(values: Sequence[int]) -> int:
    return sum(WEIGHT[v] for v in values)


def is_last_play(cards_left: int) -> bool:
    """The deal's last play is the one that plays its last card: ``cards_left`` counts
    the cards in every hand and the stock, the one being played included."""
    return cards_left == 1


def _counts(key: int) -> list[int]:
    return [0, *((key >> (3 * (v - 1))) & 7 for v in range(1, 11))]


def _multisets(counts: list[int], limit: int) -> dict[int, list[Take]]:
    """Every non-empty multiset of table values adding up to at most ``limit``, by sum."""
    found: dict[int, list[Take]] = {}

    def walk(value: int, total: int, chosen: list[int]) -> None:
        for v in range(value, 11):
            if total + v > limit:
                return
            for k in range(1, counts[v] + 1):
                s = total + v * k
                if s > limit:
                    break
                chosen.extend((v,) * k)
                found.setdefault(s, []).append(tuple(chosen))
                walk(v + 1, s, chosen)
                del chosen[-k:]

    walk(1, 0, [])
    return found


def _takes(counts: list[int], fifteen: bool, aces_take_all: bool) -> ByValue:
    out: list[tuple[Take, ...]] = [()]
    if fifteen:
        groups = _multisets(counts, 14)
        out.extend(tuple(groups.get(15 - v, ())) for v in range(1, 11))
    else:
        groups = _multisets(counts, 10)
        for v in range(1, 11):
            if counts[v]:
                out.append(((v,),))  # a single match beats any sum
            else:
                out.append(tuple(g for g in groups.get(v, ()) if len(g) >= 2))
    if aces_take_all and any(counts) and not counts[ACE]:
        # An ace played to a table with no ace on it takes the whole table.
        out[ACE] = (tuple(v for v in range(1, 11) for _ in range(counts[v])),)
    return tuple(out)


def _choices(counts: list[int], take: Take) -> int:
    """How many sets of table cards have exactly the values of ``take``."""
    n = 1
    for v in set(take):
        n *= comb(counts[v], take.count(v))
    return n


class OptionsCache(dict[int, TableOptions]):
    """Table key -> its ``TableOptions``, each computed the first time it is asked for."""

    __slots__ = ("fifteen", "aces_take_all")

    def __init__(self, fifteen: bool, aces_take_all: bool) -> None:
        super().__init__()
        self.fifteen = fifteen
        self.aces_take_all = aces_take_all

    def __missing__(self, key: int) -> TableOptions:
        counts = _counts(key)
        takes = _takes(counts, self.fifteen, self.aces_take_all)
        moves = tuple(max(1, sum(_choices(counts, t) for t in by_value)) for by_value in takes)
        whole = tuple(v for v in range(1, 11) for _ in range(counts[v]))
        clears = sum(1 << v for v in range(1, 11) if whole in takes[v])
        found = self[key] = TableOptions(takes, moves, clears)
        return found


def positions(values: Sequence[int], take: Take) -> list[Positions]:
    """The table positions ``take`` can mean, each ascending, in a stable order."""
    if len(take) == 1:
        v = take[0]
        return [(i,) for i, x in enumerate(values) if x == v]
    wanted = set(take)
    found = [i for i, x in enumerate(values) if x in wanted]
    if len(found) == len(take):
        # The table holds no more of these values than are taken: one way only.
        return [tuple(found)]
    choices = []
    k = 0
    while k < len(take):
        v = take[k]
        m = take.count(v)
        where = [i for i, x in enumerate(values) if x == v]
        choices.append(list(combinations(where, m)) if m < len(where) else [tuple(where)])
        k += m
    return [tuple(sorted(i for part in combo for i in part)) for combo in product(*choices)]


def capture_positions(
    values: Sequence[int], takes: tuple[Take, ...], moves: int
) -> list[Positions]:
    """Each capture of ``takes`` (one played value's, with its move count) as table
    positions, in the order every caller lists moves in."""
    if not takes:
        return []
    if moves == 1:
        # One choice means every table card of the values taken goes: no positions walk.
        take = takes[0]
        if len(take) == 1:
            return [(values.index(take[0]),)]
        return [tuple([i for i, x in enumerate(values) if x in take])]
    return [p for take in takes for p in positions(values, take)]


class CaptureRules:
    """The capture and sweep rules of one variant (``capture_rules(rules)``): ``tables``
    is its cache of ``TableOptions``."""

    __slots__ = ("tables", "ace_may_sweep", "sweeping")

    def __init__(self, tables: OptionsCache, ace_may_sweep: bool) -> None:
        self.tables = tables
        self.ace_may_sweep = ace_may_sweep
        # Bit v: taking the whole table with a card of value v scores, but on the last play.
        self.sweeping = sum(1 << v for v in range(1, 11) if self.is_sweep(v, 1, 1, False))

    def is_sweep(self, value: int, taken: int, on_table: int, last_play: bool) -> bool:
        """Whether taking ``taken`` of the ``on_table`` cards with a card of ``value``
        scores a sweep: it takes them all, and it is not the last play nor, under
        ``ace_sweeps: no_point``, an ace."""
        return 0 < taken == on_table and not last_play and (value != ACE or self.ace_may_sweep)

    def captures(
        self, card: int, table: Sequence[int], values: Sequence[int], key: int
    ) -> list[Move]:
        """The captures ``card`` may make from ``table`` (whose values and key are given,
        as the caller keeps them); empty if it takes nothing."""
        v = VALUE[card]
        takes, moves, _ = self.tables[key]
        return _moves(card, takes[v], moves[v], table, values)

    def legal_moves(
        self, hand: Sequence[int], table: Sequence[int], values: Sequence[int], key: int
    ) -> list[Move]:
        """In hand order, each card's captures or, if it has none, the card laid down."""
        takes, moves, _ = self.tables[key]
        found: list[Move] = []
        for card in hand:
            v = VALUE[card]
            if takes[v]:
                found.extend(_moves(card, takes[v], moves[v], table, values))
            else:
                found.append(Move(card))
        return found


def _moves(
    card: int, takes: tuple[Take, ...], moves: int, table: Sequence[int], values: Sequence[int]
) -> list[Move]:
    if not takes:
        return []
    if moves == 1 and len(takes[0]) == 1:
        # The commonest capture: one card, the only one of its value on the table.
        return [Move(card, (table[values.index(takes[0][0])],))]
    return [
        Move(card, tuple(sorted([table[i] for i in p])))
        for p in capture_positions(values, takes, moves)
    ]


# By (capture fifteen, aces take all): ace_sweeps sweep and no_point share their tables.
_TABLES = {(f, a): OptionsCache(f, a) for f in (False, True) for a in (False, True)}
_RULES: dict[tuple[str, str], CaptureRules] = {}


def capture_rules(rules: Rules) -> CaptureRules:
    variant = (rules.capture, rules.ace_sweeps)
    found = _RULES.get(variant)
    if found is None:
        tables = _TABLES[(rules.capture == "fifteen", rules.ace_sweeps != "off")]
        found = _RULES[variant] = CaptureRules(tables, rules.ace_sweeps != "no_point")
    return found
