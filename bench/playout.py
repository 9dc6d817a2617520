"""Playing a deal to its end fast, the simulation path ``bench/engine.py`` measures.

``play_out`` makes the same moves as the plain loop over the public ``Deal`` API::

    while not deal.is_over():
        moves = deal.legal_moves()
        deal.play(moves[pick(len(moves)) if len(moves) > 1 else 0])

but it never lists the moves: the cached per-table move counts (``TableOptions.moves``)
tell it which card the index ``pick`` returns falls on, and only that card's captures are
spelled out as table positions. The deal ends in exactly the state the loop leaves it in
(``tests/unit/test_engine_properties.py`` holds the two equal in every variant).

It is the same implementation of the rules, not a copy: what a card may take, the ace
taking the whole table included, comes from the deal's capture tables
(``deal.captures.tables``), positions from ``capture_positions`` and whether a capture
scores from ``CaptureRules.is_sweep``; only the commonest capture (one card, the only one
of its value on the table) is spelled out here, for speed.
"""

from __future__ import annotations

from collections.abc import Callable

from scopa.domain.captures import WEIGHT, capture_positions, is_last_play
from scopa.domain.cards import VALUE
from scopa.domain.deal import Deal, team_of

Pick = Callable[[int], int]  # given n >= 2 moves, the index of the one to play, 0..n-1


def play_out(deal: Deal, pick: Pick) -> None:
    """Play ``deal`` to its end, each move ``deal.legal_moves()[pick(n)]``; leftovers stay.

    ``pick`` is asked only when there is a choice (n >= 2). Call ``take_leftovers`` after.
    """
    captures = deal.captures
    tables = captures.tables
    players = deal.players
    teams = [team_of(seat, players) for seat in range(players)]
    packet = players * deal.hand_size
    first = deal.dealer + 1
    hands = deal.hands
    table = deal.table
    values = deal.values
    stock = deal.stock
    piles = deal.piles
    sweeps = deal.sweeps
    last_capturer = deal.last_capturer
    key = deal.key
    turn = deal.turn
    left = len(stock) + sum(map(len, hands))
    value = VALUE
    weight = WEIGHT
    while left:
        hand = hands[turn]
        takes, moves, _ = tables[key]
        if len(hand) == 1:
            card = hand[0]
            v = value[card]
            i = pick(moves[v]) if moves[v] > 1 else 0
        else:
            n = 0
            for card in hand:
                n += moves[value[card]]
            i = pick(n)
            if n == len(hand):
                # One move per card, the usual case: the index is the card's.
                card = hand[i]
                i = 0
            else:
                for card in hand:
                    m = moves[value[card]]
                    if i < m:
                        break
                    i -= m
            v = value[card]
        hand.remove(card)
        by_value = takes[v]
        if by_value:
            team = teams[turn]
            pile = piles[team]
            if len(by_value[0]) == len(values):
                if captures.is_sweep(v, len(values), len(values), is_last_play(left)):
                    sweeps[team] += 1
                pile.extend(table)
                table.clear()
                values.clear()
                key = 0
            elif moves[v] == 1 and len(by_value[0]) == 1:
                # The commonest capture: one card, the only one of its value on the table.
                j = values.index(by_value[0][0])
                pile.append(table.pop(j))
                key -= weight[values.pop(j)]
            else:
                where = capture_positions(values, by_value, moves[v])[i]
                pile.extend([table[j] for j in where])
                for j in reversed(where):
                    del table[j]
                    key -= weight[values.pop(j)]
            pile.append(card)
            last_capturer = team
        else:
            table.append(card)
            values.append(v)
            key += weight[v]
        left -= 1
        turn += 1
        if turn == players:
            turn = 0
        if not hands[turn] and stock:
            for seat in range(players):
                hands[seat].extend(stock[(seat - first) % players : packet : players])
            del stock[:packet]
    deal.key = key
    deal.turn = turn
    deal.last_capturer = last_capturer
