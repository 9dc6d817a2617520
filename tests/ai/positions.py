"""Building match states for AI tests: random positions and hand-made ones."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from scopa.domain.cards import DECK, parse_cards
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules, make_rules
from tests.unit.build import RuleOptions

VARIANTS: dict[str, RuleOptions] = {
    "classic": {},
    "fifteen": {"capture": "fifteen"},
    "ace_sweeps": {"ace_sweeps": "sweep"},
    "ace_no_point": {"ace_sweeps": "no_point"},
    "king_and_sequence": {"king_of_diamonds": True, "diamond_sequence": True, "target": 11},
    "six_cards": {"hand_size": 6},
}


def rules_for(variant: str, players: int = 2, target: int | None = None) -> Rules:
    options: RuleOptions = {**VARIANTS[variant]}
    if target is not None:
        options["target"] = target
    return make_rules(players=players, **options)


def fresh_match(rules: Rules, players: int, seed: int) -> MatchState:
    state, _ = new_match(rules, [Seat("ai", "easy")] * players, seed)
    return state


def random_positions(rules: Rules, players: int, seed: int, count: int) -> Iterator[MatchState]:
    """``count`` positions met while random legal moves play matches out."""
    rng = SplitMix64(seed)
    state = fresh_match(rules, players, seed)
    for _ in range(count):
        if state.status != "active":
            state = fresh_match(rules, players, rng.next64() >> 1)
        yield state
        moves = legal_moves(state)
        assert state.turn is not None
        state, _ = play(state, state.turn, moves[rng.below(len(moves))])


def position(
    hands: Sequence[str],
    table: str,
    *,
    piles: Sequence[str] = ("", ""),
    stock: int | None = None,
    rules: Rules | None = None,
    turn: int = 0,
    scores: tuple[int, int] = (0, 0),
) -> MatchState:
    """A state from card notation (space separated); every card not named is in the stock,
    or ``stock`` of them are and the rest go to team 1's pile."""
    hand_cards = [tuple(parse_cards(h.split())) for h in hands]
    table_cards = tuple(parse_cards(table.split()))
    pile_cards = [tuple(parse_cards(p.split())) for p in piles]
    named = {c for h in hand_cards for c in h} | set(table_cards)
    named |= {c for p in pile_cards for c in p}
    rest = [c for c in DECK if c not in named]
    if stock is not None:
        pile_cards[1] = (*pile_cards[1], *rest[stock:])
        rest = rest[:stock]
    players = len(hands)
    return MatchState(
        rules=rules or make_rules(players=players),
        seats=tuple(Seat("ai", "hard") for _ in range(players)),
        rng=1,
        status="active",
        deal=1,
        dealer=(turn - 1) % players,
        turn=turn,
        hands=tuple(hand_cards),
        table=table_cards,
        stock=tuple(rest),
        piles=tuple(pile_cards),
        scores=scores,
    )
