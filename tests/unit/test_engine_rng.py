"""The match's generator is fixed forever: SplitMix64, Lemire's bounded draw, Durstenfeld.

Changing any output here changes the deals of every stored match, so these values are
pinned. The SplitMix64 outputs are the published reference values (Vigna's splitmix64.c),
checked once more against a separate C implementation when they were pinned.
"""

from __future__ import annotations

import pytest

from scopa.domain.cards import DECK, names
from scopa.domain.events import DealStarted, Redeal
from scopa.domain.match import Seat, new_match
from scopa.domain.rng import AI_STREAM, SplitMix64, seeded_ai_secret
from scopa.domain.rules import make_rules
from tests.unit import reference
from tests.unit.build import play_through

GAMMA = 0x9E3779B97F4A7C15


@pytest.mark.parametrize(
    ("seed", "outputs"),
    [
        (0, [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC,
             0x1B39896A51A8749B]),
        (1234567, [0x599ED017FB08FC85, 0x2C73F08458540FA5, 0x883EBCE5A3F27C77]),
    ],
)  # fmt: skip
def test_splitmix64_reference_outputs(seed: int, outputs: list[int]) -> None:
    rng = SplitMix64(seed)
    assert [rng.next64() for _ in outputs] == outputs


def test_seeds_wrap_to_64_bits() -> None:
    assert SplitMix64(1 << 64).state == 0
    assert SplitMix64(-1).state == (1 << 64) - 1


def test_the_first_shuffled_deck_of_seed_42_is_pinned() -> None:
    deck = list(DECK)
    rng = SplitMix64(42)
    rng.shuffle(deck)
    assert " ".join(names(deck)) == (
        "2H AH KS AC 6D 4C QC 5H KC 7S 4S 3H 4D 7D 5C QD 6H 2S 6S 5S "
        "3S 4H 2D 3C 6C JD JH QH 5D QS KD JS 7H JC AS 2C 3D AD 7C KH"
    )
    assert rng.state == (42 + 39 * GAMMA) & ((1 << 64) - 1)  # one draw per swap


@pytest.mark.parametrize("seed", [0, 1, 42, 2**63 - 1, 0xDEADBEEF])
def test_shuffle_and_below_agree_with_the_plain_definitions(seed: int) -> None:
    ours, book = SplitMix64(seed), reference.SplitMix64(seed)
    for n in (1, 2, 3, 7, 40, 2**32 + 1, 2**63 + 12345, 2**64 - 1):
        assert [ours.below(n) for _ in range(20)] == [book.below(n) for _ in range(20)]
    for size in (0, 1, 2, 10, 40, 100):
        items = list(range(size))
        expected = [str(i) for i in items]
        ours.shuffle(items)
        book.shuffle(expected)
        assert [str(i) for i in items] == expected
    assert ours.state == book.state


def test_a_rejected_draw_is_drawn_again_inside_shuffle() -> None:
    # The finaliser maps 0 to 0, so this seed's first output is 0. For n = 3 the low word
    # 0 is below 2**64 mod 3 = 1 and must be rejected: Lemire's rule, not a modulo.
    seed = (-GAMMA) & ((1 << 64) - 1)
    assert SplitMix64(seed).next64() == 0
    items = ["a", "b", "c"]
    SplitMix64(seed).shuffle(items)
    expected = ["a", "b", "c"]
    book = reference.SplitMix64(seed)
    book.shuffle(expected)
    assert items == expected
    draws = SplitMix64(seed)
    draws.shuffle(["a", "b", "c"])
    assert draws.state == (seed + 3 * GAMMA) & ((1 << 64) - 1)  # 2 swaps, 1 rejected draw
    rng = SplitMix64(seed)
    assert rng.below(3) == (SplitMix64(seed + GAMMA).next64() * 3) >> 64


def documented_draws(
    seed: int, players: int, first_dealer: int | None, dealt: list[tuple[str, int]]
) -> tuple[int, list[list[str]]]:
    """docs/api.md's order of draws, by the plain generator: the first dealer unless named,
    then per entry of ``dealt`` ("deal", n) a fresh shuffle of the unshuffled order, or
    ("explicit", n) nothing, or ("redeal", n) the voided deck shuffled again."""
    rng = reference.SplitMix64(seed)
    dealer = rng.below(players) if first_dealer is None else first_dealer
    decks: list[list[str]] = []
    for kind, _ in dealt:
        if kind == "explicit":
            continue
        deck = list(reference.ALL_CARDS) if kind == "deal" else decks[-1][:]
        rng.shuffle(deck)
        decks.append(deck)
    return dealer, decks


@pytest.mark.parametrize(("seed", "first_dealer"), [(44, None), (44, 1), (7, None), (2**63 - 1, 0)])
def test_a_match_draws_in_the_documented_order(seed: int, first_dealer: int | None) -> None:
    state, events = new_match(make_rules(target=3), [Seat("human")] * 2, seed, (), first_dealer)
    _, more = play_through(state)
    dealt = [e for e in events + more if isinstance(e, Redeal | DealStarted)]
    kinds = []
    for before, event in zip([None, *dealt], dealt, strict=False):
        kinds.append(("redeal" if isinstance(before, Redeal) else "deal", event.deal))
    dealer, decks = documented_draws(seed, 2, first_dealer, kinds)
    assert [list(e.deck) for e in dealt] == decks
    assert next(e for e in dealt if isinstance(e, DealStarted)).dealer == dealer
    if (seed, first_dealer) == (44, None):
        assert isinstance(dealt[0], Redeal)  # the case that reshuffles a voided deck


def test_explicit_decks_draw_nothing() -> None:
    given = list(range(40))
    state, events = new_match(make_rules(target=21), [Seat("human")] * 2, 5, [given], 0)
    _, more = play_through(state, until_deal=2)
    first, second = [e for e in events + more if isinstance(e, DealStarted)][:2]
    assert list(first.deck) == names(given)
    # Deal 2 is the first one shuffled: the generator's first draw, the dealer being named.
    assert [list(second.deck)] == documented_draws(5, 2, 0, [("deal", 2)])[1]


def test_a_seeded_matchs_ai_secret_follows_its_definition() -> None:
    """The AI secret of a seeded match, from the plain generator as rng.py defines it."""

    def defined(seed: int | None, decks: list[list[str]]) -> int:
        rng = reference.SplitMix64((seed or 0) ^ AI_STREAM)
        for deck in decks:
            for card in deck:
                rng = reference.SplitMix64(rng.next64() ^ reference.ALL_CARDS.index(card))
        return rng.next64() >> 1

    deck = names(DECK)
    cases = [(7, []), (0, []), (2**63 - 1, []), (None, [deck]), (7, [deck, deck[::-1]])]
    for seed, decks in cases:
        as_ints = [[DECK[deck.index(card)] for card in d] for d in decks]
        assert seeded_ai_secret(seed, as_ints) == defined(seed, decks)
    assert seeded_ai_secret(7) == 4268391115647967232  # pinned: the README's match uses it
    assert seeded_ai_secret(None, [DECK]) != seeded_ai_secret(None, [DECK[::-1]])


def test_the_ai_secret_is_no_state_of_the_shuffles_generator() -> None:
    shuffles = SplitMix64(7)
    states = {7}
    for _ in range(1000):
        shuffles.next64()
        states.add(shuffles.state)
    assert seeded_ai_secret(7) not in states
