"""Every level plays Scopone with a partner; the expert searches it as deep as its ten-card
hands allow."""

from __future__ import annotations

import msgspec
import pytest

from scopa.domain.ai import decide
from scopa.domain.ai import review as coach
from scopa.domain.ai.expert import SCOPONE_DEPTH, depth_for
from scopa.domain.ai.knowledge import knowledge_of
from scopa.domain.ai.review import review
from scopa.domain.ai.tournament import play_match
from scopa.domain.cards import parse_cards
from scopa.domain.match import Seat, legal_moves, new_match, play
from scopa.domain.rules import make_rules

SCOPONE = make_rules(deal="scopone", players=4, target=1)


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_each_level_plays_a_scopone_match_to_its_end(level: str) -> None:
    # The level holds team 0 (seats 0 and 2), easy the other team.
    state, _ = play_match(SCOPONE, [level, "easy", level, "easy"], seed=29)
    assert state.status == "finished"
    assert state.end_reason == "score"
    assert sum(len(p) for p in state.piles) == 40


def test_the_expert_searches_deeper_as_the_hands_shrink() -> None:
    state, _ = new_match(SCOPONE, [Seat("ai", "hard")] * 4, 3, first_dealer=3)
    depths = []
    while state.status == "active" and state.deal == 1:
        assert state.turn is not None
        depths.append(depth_for(knowledge_of(state, state.turn)))
        move, _ = decide(state, state.turn, "hard", len(depths))
        state, _ = play(state, state.turn, move)
    assert depths[0] == SCOPONE_DEPTH[0][1]
    assert depths == sorted(depths)
    assert depths[-1] == SCOPONE_DEPTH[-1][1]
    four = make_rules(players=4)
    scopa_state, _ = new_match(four, [Seat("ai", "hard")] * 4, 3)
    assert depth_for(knowledge_of(scopa_state, 0)) == 6


def test_the_expert_takes_the_settebello_for_its_team() -> None:
    # Seat 1 plays the 7 of clubs and holds the 7 of hearts; on the table the settebello.
    state, _ = new_match(SCOPONE, [Seat("ai", "expert")] * 4, 5, first_dealer=0)
    hands = [parse_cards(h.split()) for h in ("AC 2C", "7C KS", "AH 2H", "3S 4S")]
    table = tuple(parse_cards(["7D", "QH"]))
    state = msgspec.structs.replace(
        state, hands=tuple(tuple(h) for h in hands), table=table, turn=1
    )
    move, _ = decide(state, 1, "expert", 1, samples=8)
    assert move in legal_moves(state)
    assert parse_cards(["7D"])[0] in move.capture


def test_the_coach_reviews_a_scopone_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    # Over fewer sampled deals than in play: the test is about what is judged, not how well.
    monkeypatch.setattr(coach, "REVIEW_WORLDS", 8)
    initial, events = new_match(SCOPONE, [Seat("ai", "hard")] * 4, 11)
    state = initial
    while state.status == "active":
        assert state.turn is not None
        move, _ = decide(state, state.turn, "hard", state.seq)
        state, more = play(state, state.turn, move)
        events += more
    judged = review(initial, events, 0)
    assert len(judged.moves) == 10 * state.deal
