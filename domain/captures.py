"""Which table cards a played card may take.

What a card may take depends only on the multiset of values on the table, so the answer
is computed once per multiset and cached. The multiset is one int, ``key``: three bits of
count per value (``WEIGHT[v]``), kept up to date as cards come and go. ``take_options(key,
fifteen)[v]`` lists, for a played card of value ``v``, each capture as a sorted tuple of
the values taken; ``positions`` turns one into the table positions it can mean (two 2s on
the table make two different moves). ``table_options`` also carries how many moves each
played value has, so a playout can draw a move without listing them all.
"""

from __future__ import annotations

from itertools import combinations, product
from math import comb
from typing import NamedTuple

Positions = tuple[int, ...]
Take = tuple[int, ...]  # the values taken, ascending
ByValue = tuple[tuple[Take, ...], ...]  # indexed by played value 0..10 (0 unused)

WEIGHT: tuple[int, ...] = (0, *(1 << (3 * (v - 1)) for v in range(1, 11)))


class TableOptions(NamedTuple):
    takes: ByValue
    # Per played value: how many moves it has (position choices, or 1 when it stays).
    moves: tuple[int, ...]


def table_key(values: list[int] | tuple[int, ...]) -> int:
    return sum(WEIGHT[v] for v in values)


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


def _takes(counts: list[int], fifteen: bool) -> ByValue:
    if fifteen:
        groups = _multisets(counts, 14)
        return ((), *(tuple(groups.get(15 - v, ())) for v in range(1, 11)))
    groups = _multisets(counts, 10)
    out: list[tuple[Take, ...]] = [()]
    for v in range(1, 11):
        if counts[v]:
            out.append(((v,),))  # a single match beats any sum
        else:
            out.append(tuple(g for g in groups.get(v, ()) if len(g) >= 2))
    return tuple(out)


def _choices(counts: list[int], take: Take) -> int:
    """How many sets of table cards have exactly the values of ``take``."""
    n = 1
    for v in set(take):
        n *= comb(counts[v], take.count(v))
    return n


def _compute(key: int, fifteen: bool) -> TableOptions:
    counts = _counts(key)
    takes = _takes(counts, fifteen)
    moves = tuple(max(1, sum(_choices(counts, t) for t in by_value)) for by_value in takes)
    return TableOptions(takes, moves)


class OptionsCache(dict[int, TableOptions]):
    """Table key -> its ``TableOptions``, each computed the first time it is asked for."""

    __slots__ = ("fifteen",)

    def __init__(self, fifteen: bool) -> None:
        super().__init__()
        self.fifteen = fifteen

    def __missing__(self, key: int) -> TableOptions:
        found = self[key] = _compute(key, self.fifteen)
        return found


# Indexed by ``fifteen``; hot loops index these directly rather than call table_options.
OPTIONS: tuple[OptionsCache, OptionsCache] = (OptionsCache(False), OptionsCache(True))


def table_options(key: int, fifteen: bool) -> TableOptions:
    return OPTIONS[fifteen][key]


def take_options(key: int, fifteen: bool) -> ByValue:
    return table_options(key, fifteen).takes


def positions(values: list[int], take: Take) -> list[Positions]:
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
