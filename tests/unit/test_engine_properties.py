"""Random games in every option combination, checked for what must always hold, and
checked move by move against the slow model of docs/rules.md in ``reference.py``."""

from __future__ import annotations

import itertools
import random
import re

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.playout import play_out
from scopa.contract.events import for_viewer
from scopa.contract.views import match_view
from scopa.domain.cards import NAME, VALUE, names
from scopa.domain.deal import Deal, team_of
from scopa.domain.events import (
    CardPlayed,
    CardsDealt,
    DealScored,
    DealStarted,
    LeftoversTaken,
    MatchFinished,
    Redeal,
    StoredEvent,
)
from scopa.domain.match import MatchState, is_sweep, legal_moves, new_match, play, replay
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules
from scopa.domain.scoring import deal_points, score_deal
from tests.unit import reference
from tests.unit.build import humans

# Thousands of games replay the engine the unit tests reach rule by rule.
pytestmark = pytest.mark.untraced


def combinations() -> list[tuple[Rules, int]]:
    """Every option combination the rules allow, with its number of players."""
    found = []
    for capture, aces, king, sequence, (players, hand) in itertools.product(
        ("match", "fifteen"),
        ("off", "sweep", "no_point"),
        (False, True),
        (False, True),
        ((2, 3), (4, 3), (2, 6)),
    ):
        if capture == "fifteen" and aces != "off":
            continue
        rules = make_rules(
            capture=capture,
            ace_sweeps=aces,
            king_of_diamonds=king,
            diamond_sequence=sequence,
            hand_size=hand,
            players=players,
            target=1,  # replaced per example: short matches, so more of them
        )
        found.append((rules, players))
        if players == 4 and king == sequence:
            # Scopone under each capture and ace rule, both diamond variants off or on.
            scopone = msgspec.structs.replace(rules, deal="scopone")
            found.append((scopone, players))
    return found


COMBINATIONS = combinations()
IDS = [
    f"{r.capture}-{r.ace_sweeps}-k{int(r.king_of_diamonds)}-s{int(r.diamond_sequence)}"
    f"-{p}p{r.hand_size}{'-scopone' if r.deal == 'scopone' else ''}"
    for r, p in COMBINATIONS
]
CARD = re.compile(r'"([A2-7JQK][CDHS])"')
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
TARGETS = st.integers(min_value=1, max_value=12)


def with_target(rules: Rules, target: int) -> Rules:
    return msgspec.structs.replace(rules, target=target)


def random_match(
    rules: Rules, players: int, seed: int, choices: random.Random
) -> tuple[MatchState, list[MatchState], list[StoredEvent]]:
    """A whole match of uniformly random legal moves: (initial, every state, all events)."""
    initial, events = new_match(rules, humans(players), seed)
    states = [initial]
    state = initial
    while state.status == "active":
        assert state.turn is not None
        state, new = play(state, state.turn, choices.choice(legal_moves(state)))
        assert state.version == states[-1].version + 1
        states.append(state)
        events += new
    return initial, states, events


def nobodys_leftovers(events: list[StoredEvent]) -> list[str]:
    return [c for e in events if isinstance(e, LeftoversTaken) and e.team is None for c in e.cards]


def check_cards_accounted_for(state: MatchState, lost: list[str]) -> None:
    held = [
        *(c for h in state.hands for c in h),
        *state.table,
        *state.stock,
        *(c for p in state.piles for c in p),
    ]
    assert len(held) == len(set(held))
    if state.status == "finished":
        assert sorted(names(held) + lost) == sorted(NAME)
    else:
        assert len(held) == 40


def check_views(state: MatchState) -> None:
    """No view shows a card of a hand but its own; a spectator sees none."""
    for viewer in [None, *range(state.players)]:
        view = match_view("m", state, viewer)
        shown = set(CARD.findall(msgspec.json.encode(view).decode()))
        for seat, hand in enumerate(state.hands):
            secret = set(names(hand))
            assert (secret <= shown) if seat == viewer else not (secret & shown)
        assert (view.hand is None) is (viewer is None)
        assert bool(view.legal_moves) is (viewer is not None and viewer == state.turn)


def check_events(state: MatchState, events: list[StoredEvent], rules: Rules) -> None:
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert state.seq == len(events)
    deal_sweeps = [0, 0]
    totals = [0, 0]
    for i, event in enumerate(events):
        if isinstance(event, CardPlayed):
            ends_deal = isinstance(events[i + 1], LeftoversTaken | DealScored)
            if ends_deal:
                assert not event.sweep
            if event.sweep:
                assert event.capture
                deal_sweeps[team_of(event.seat, state.players)] += 1
                if rules.ace_sweeps == "no_point":
                    assert event.card[0] != "A"
        elif isinstance(event, DealScored):
            for team in event.teams:
                points = msgspec.structs.asdict(team.points)
                assert team.total == sum(points.values())
                assert team.sweeps == points["sweeps"] == deal_sweeps[team.team]
                totals[team.team] += team.total
            assert sum(t.cards for t in event.teams) <= 40
            assert list(event.scores) == totals
            deal_sweeps = [0, 0]
            follows = events[i + 1] if i + 1 < len(events) else None
            assert isinstance(follows, MatchFinished | Redeal | DealStarted)
        elif isinstance(event, MatchFinished):
            assert i == len(events) - 1
            assert event.winner == state.winner
            high = max(event.scores)
            assert high >= rules.target
            assert event.scores.count(high) == 1
            assert event.winner == event.scores.index(high)
    assert list(state.scores) == totals
    # Every deal dealt is scored once, before the next is dealt (a match ended by score).
    dealt_and_scored = [type(e) for e in events if isinstance(e, DealStarted | DealScored)]
    assert dealt_and_scored == [DealStarted, DealScored] * (len(dealt_and_scored) // 2)
    assert [list(d.scores) for d in state.deal_scores] == [
        list(e.scores) for e in events if isinstance(e, DealScored)
    ]


def check_events_per_viewer(events: list[StoredEvent], players: int) -> None:
    """A viewer's events show only public cards and that viewer's own dealt cards."""
    for viewer in [None, *range(players)]:
        public: set[str] = set()
        own: set[str] = set()
        for event in events:
            if isinstance(event, Redeal):
                public |= set(event.table)
            elif isinstance(event, DealStarted):
                public |= set(event.table)
                own |= set(event.hands[viewer]) if viewer is not None else set()
            elif isinstance(event, CardsDealt) and viewer is not None:
                own |= set(event.hands[viewer])
            elif isinstance(event, CardPlayed):
                public |= {event.card, *event.capture}
            seen = for_viewer(event, viewer)
            shown = set(CARD.findall(msgspec.json.encode(seen).decode()))
            assert shown <= public | own
            hand = getattr(seen, "hand", None)
            if isinstance(event, DealStarted | CardsDealt):
                assert hand == (None if viewer is None else event.hands[viewer])


@pytest.mark.parametrize(("rules", "players"), COMBINATIONS, ids=IDS)
@settings(max_examples=36, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, target=TARGETS, choice_seed=SEEDS)
def test_random_matches_keep_every_invariant(
    rules: Rules, players: int, seed: int, target: int, choice_seed: int
) -> None:
    rules = with_target(rules, target)
    initial, states, events = random_match(rules, players, seed, random.Random(choice_seed))
    final = states[-1]
    for state in states[:-1]:
        check_cards_accounted_for(state, [])
    assert final.status == "finished"
    last_deal = events[max(i for i, e in enumerate(events) if isinstance(e, DealStarted)) :]
    check_cards_accounted_for(final, nobodys_leftovers(last_deal))
    for state in states[:: max(1, len(states) // 8)]:
        check_views(state)
    check_views(final)
    check_events(final, events, rules)
    check_events_per_viewer(events, players)
    assert msgspec.json.encode(replay(initial, events)) == msgspec.json.encode(final)


def engine_moves(state: MatchState) -> set[tuple[str, frozenset[str], bool]]:
    moves = legal_moves(state)
    found = {(NAME[m.card], frozenset(names(m.capture)), is_sweep(state, m)) for m in moves}
    assert len(found) == len(moves), "a move is listed twice"
    return found


@pytest.mark.parametrize(("rules", "players"), COMBINATIONS, ids=IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, target=TARGETS, choice_seed=SEEDS)
def test_random_matches_agree_with_the_reference_model_move_by_move(
    rules: Rules, players: int, seed: int, target: int, choice_seed: int
) -> None:
    rules = with_target(rules, target)
    choices = random.Random(choice_seed)
    state, events = new_match(rules, humans(players), seed)
    model = reference.Match(rules, players, seed)
    log = list(events)
    while True:
        for start in [e for e in events if isinstance(e, DealStarted)]:
            assert (start.dealer, list(start.table)) == (model.deal.dealer, model.deal.table)
            assert [list(h) for h in start.hands] == model.deal.hands
        if state.status == "finished":
            break
        assert model.winner is None
        assert state.turn == model.deal.turn
        moves = engine_moves(state)
        assert moves == model.deal.moves()
        card, taken, sweep = sorted(moves, key=lambda m: (m[0], sorted(m[1])))[
            choices.randrange(len(moves))
        ]
        model_sweep = model.play(card, taken)
        move = Move.of(NAME.index(card), [NAME.index(c) for c in taken])
        state, events = play(state, state.turn, move)
        log += events
        played = events[0]
        assert isinstance(played, CardPlayed)
        assert played.sweep is sweep is model_sweep
    assert [list(e.table) for e in log if isinstance(e, Redeal)] == model.redeals
    scored = [e for e in log if isinstance(e, DealScored)]
    assert len(scored) == len(model.deal_scores)
    running = [0, 0]
    for event, expected in zip(scored, model.deal_scores, strict=True):
        for team, want in zip(event.teams, expected, strict=True):
            got = msgspec.structs.asdict(team)
            got["points"] = msgspec.structs.asdict(team.points)
            del got["team"]
            assert got == want
            running[team.team] += want["total"]
        assert list(event.scores) == running
    assert state.winner == model.winner is not None


@pytest.mark.parametrize(("rules", "players"), COMBINATIONS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(deck_seed=SEEDS, choice_seed=SEEDS, dealer=st.integers(0, 3), head=st.integers(0, 40))
def test_play_out_makes_the_moves_of_the_public_loop(
    rules: Rules, players: int, deck_seed: int, choice_seed: int, dealer: int, head: int
) -> None:
    """From any point of a deal, ``play_out`` ends where legal_moves + play end."""
    deck = list(range(40))
    random.Random(deck_seed).shuffle(deck)
    slow = Deal.open(rules, players, dealer % players, deck)
    for _ in range(head):
        if slow.is_over():
            break
        slow.play(slow.legal_moves()[0])
    fast = slow.clone()
    pick_slow, pick_fast = random.Random(choice_seed), random.Random(choice_seed)
    asked: list[int] = []

    def pick(n: int) -> int:
        asked.append(n)
        return pick_fast.randrange(n)

    while not slow.is_over():
        moves = slow.legal_moves()
        slow.play(moves[pick_slow.randrange(len(moves)) if len(moves) > 1 else 0])
    play_out(fast, pick)
    assert all(n >= 2 for n in asked)
    for name in Deal.__slots__:
        assert getattr(fast, name) == getattr(slow, name), name
    assert fast.take_leftovers() == slow.take_leftovers()
    score = score_deal(rules, 1, slow.piles, slow.sweeps, (0, 0))
    assert deal_points(rules, fast.piles, fast.sweeps) == tuple(t.total for t in score.teams)


def test_every_sweep_flag_is_what_the_rules_say_on_the_deal_core() -> None:
    """Over many random deals, each move's sweep flag: the whole table, not the last play,
    not an ace under no_point."""
    checked = 0
    for k in range(400):
        rules, players = COMBINATIONS[k % len(COMBINATIONS)]
        deck = list(range(40))
        random.Random(k).shuffle(deck)
        deal = Deal.open(rules, players, k % players, deck)
        choices = random.Random(-k)
        while not deal.is_over():
            moves = deal.legal_moves()
            last = sum(map(len, deal.hands)) + len(deal.stock) == 1
            for move in moves:
                whole = len(move.capture) == len(deal.table) > 0
                ace_spoils = rules.ace_sweeps == "no_point" and VALUE[move.card] == 1
                assert deal.is_sweep(move) is (whole and not last and not ace_spoils)
                checked += 1
            deal.play(choices.choice(moves))
    assert checked > 10_000
