"""The AI sees only what its seat may know."""

from __future__ import annotations

import inspect

import msgspec
import pytest

from scopa.domain.ai import LEVELS, decide, easy, expert, hard, medium
from scopa.domain.ai.knowledge import Knowledge, candidates, knowledge_of
from scopa.domain.cards import DECK
from scopa.domain.match import MatchState, Seat, is_sweep, legal_moves
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import make_rules
from tests.ai.positions import VARIANTS, random_positions, rules_for


def _reshuffle_hidden(state: MatchState, seat: int, seed: int) -> MatchState:
    """The same state for ``seat``: the other hands and the stock dealt anew from the
    cards it cannot see, each hand keeping its size."""
    hidden = [c for s, h in enumerate(state.hands) if s != seat for c in h] + list(state.stock)
    SplitMix64(seed).shuffle(hidden)
    hands = []
    at = 0
    for s, h in enumerate(state.hands):
        if s == seat:
            hands.append(h)
        else:
            hands.append(tuple(hidden[at : at + len(h)]))
            at += len(h)
    return msgspec.structs.replace(state, hands=tuple(hands), stock=tuple(hidden[at:]))


def test_knowledge_has_no_field_for_hidden_cards() -> None:
    fields = {f.name for f in msgspec.structs.fields(Knowledge)}
    assert fields == {
        "rules",
        "players",
        "seat",
        "dealer",
        "turn",
        "hand",
        "table",
        "piles",
        "hand_counts",
        "deck_count",
        "sweeps",
        "last_capturer",
        "scores",
        # Only hands everyone sees (reveal_ai_hands), and only for the coach: see below.
        "shown",
    }


@pytest.mark.parametrize("players", [2, 4])
def test_a_seat_in_play_is_not_shown_the_revealed_hands(players: int) -> None:
    """Under reveal_ai_hands the views show the AI hands, but an AI seat still plays from
    what its own seat may know; the coach alone adds the shown hands, and only AI seats'."""
    rules = make_rules(players=players, reveal_ai_hands=True)
    for state in random_positions(rules, players, seed=5, count=40):
        seat = state.turn
        assert seat is not None
        assert knowledge_of(state, seat).shown == ()
        assert set(knowledge_of(state, seat).unseen) >= set(state.stock)
        human = msgspec.structs.replace(state, seats=(Seat("human"), *state.seats[1:]))
        coached = knowledge_of(human, seat, with_shown=True)
        assert coached.shown == (None, *state.hands[1:])
        assert set(coached.unseen) == set(state.stock) | set(state.hands[0] if seat != 0 else ())
        plain = msgspec.structs.replace(state, rules=make_rules(players=players))
        assert knowledge_of(plain, seat, with_shown=True).shown == ()


@pytest.mark.parametrize("choose", [easy.choose, medium.choose, hard.choose, expert.choose])
def test_strategies_take_knowledge_only(choose: object) -> None:
    assert callable(choose)
    params = inspect.signature(choose).parameters
    kinds = [p.annotation for p in params.values()]
    assert kinds[0] == "Knowledge"
    assert not any("MatchState" in str(a) or "Deal" in str(a) for a in kinds)


@pytest.mark.parametrize("players", [2, 4])
def test_knowledge_holds_only_visible_cards(players: int) -> None:
    for state in random_positions(rules_for("classic", players), players, seed=3, count=80):
        seat = state.turn
        assert seat is not None
        k = knowledge_of(state, seat)
        hidden = {c for s, h in enumerate(state.hands) if s != seat for c in h}
        hidden |= set(state.stock)
        visible = set(k.hand) | set(k.table) | {c for p in k.piles for c in p}
        assert not visible & hidden
        assert set(k.unseen) == hidden
        assert len(visible) + len(k.unseen) == len(DECK)
        assert k.hand_counts == tuple(len(h) for h in state.hands)
        assert k.deck_count == len(state.stock)


def test_candidates_are_the_legal_moves() -> None:
    for variant in VARIANTS:
        rules = rules_for(variant)
        for state in random_positions(rules, 2, seed=5, count=80):
            assert state.turn is not None
            k = knowledge_of(state, state.turn)
            mine = candidates(k)
            assert mine == legal_moves(state)
            assert [k.is_sweep(m) for m in mine] == [is_sweep(state, m) for m in mine]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("level", LEVELS)
def test_hidden_cards_do_not_change_the_decision(level: str, players: int) -> None:
    rules = rules_for("classic", players)
    for i, state in enumerate(random_positions(rules, players, seed=17, count=40)):
        seat = state.turn
        assert seat is not None
        other = _reshuffle_hidden(state, seat, i)
        assert other != state or not state.stock
        assert knowledge_of(other, seat) == knowledge_of(state, seat)
        first = decide(state, seat, level, i, samples=4)
        assert decide(other, seat, level, i, samples=4) == first


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_decision(level: str) -> None:
    for i, state in enumerate(random_positions(rules_for("fifteen"), 2, seed=23, count=30)):
        assert state.turn is not None
        first = decide(state, state.turn, level, 1000 + i, samples=5)
        assert decide(state, state.turn, level, 1000 + i, samples=5) == first


@pytest.mark.parametrize(("level", "share"), [("easy", 5), ("medium", 1)])
def test_the_easier_levels_slip_at_their_rate(level: str, share: int) -> None:
    """Easy plays half its cards without thinking, medium one in ten (docs/ai.md screens
    both shares), and otherwise thinks: its other reasons are there too."""
    states = list(random_positions(rules_for("classic"), 2, seed=29, count=400))
    reasons = []
    for i, state in enumerate(states):
        assert state.turn is not None
        reasons.append(decide(state, state.turn, level, i)[1])
    slips = reasons.count("plays a card without thinking")
    # 400 draws at share/10: four standard deviations either side.
    expected = len(states) * share / 10
    sd = (len(states) * share / 10 * (1 - share / 10)) ** 0.5
    assert abs(slips - expected) < 4 * sd
    assert len(set(reasons)) > 2
