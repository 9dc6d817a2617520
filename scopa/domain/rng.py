"""The match's random generator: SplitMix64, and Fisher-Yates over it.

A stored match must deal the same cards after an upgrade or on another Python, so the
shuffle never touches ``random``. The generator is SplitMix64 (Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", 2014): the state is one 64-bit integer,
advanced by the golden-ratio increment 0x9E3779B97F4A7C15 and mixed by the finaliser
below. A bounded draw ``below(n)`` uses Lemire's multiply-shift with rejection, so it
is exactly uniform. ``shuffle`` is Durstenfeld's Fisher-Yates: for i from the last index
down to 1, swap item i with item ``below(i + 1)``. These definitions are fixed: changing
any of them changes every stored match's deals.

A match seeds one generator and draws from it in this order, and nothing else draws from
it (the AI and the hints have a secret of their own), so that anyone given the seed (the
view's ``fairness`` once a match is finished) can replay every shuffle: the first dealer
(``below(players)``, unless it was named), then for each deal not given as an explicit
deck a shuffle of the unshuffled order (AC 2C .. KC, AD .. KD, AH .. KH, AS .. KS, ranks
A 2 3 4 5 6 7 J Q K, as ``domain.cards.DECK``), and for each redeal a shuffle of the voided
deck as it was dealt from. The first deal is drawn when the match becomes active.

The AI's secret (``seeded_ai_secret``) is its own stream: an unseeded match draws it at
random; a seeded one (given a seed or decks, so its cards are known anyway) derives it,
so that its AI plays the same moves on every run. SplitMix64 is started at the seed (0
when none was given) XOR ``AI_STREAM``; for each card of each given deck, in order, it is
restarted at its next draw XOR the card's index in ``DECK``; the secret is its next draw
shifted right by one bit (63 bits, as every seed). It reads the seed, never the shuffles'
generator state, and draws nothing from that generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
# Where a seeded match's AI secret is drawn from: any constant apart from the shuffles'.
AI_STREAM = 0xA1A1_5EED_0F5C_09A0


class SplitMix64:
    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), for 0 < n < 2**64."""
        # next64 inlined: this and shuffle are the hot paths of every simulation.
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        m = (z ^ (z >> 31)) * n
        if m & 0xFFFFFFFFFFFFFFFF < n:
            # Lemire's rejection: only low words below 2**64 mod n are biased.
            threshold = (1 << 64) % n
            while m & 0xFFFFFFFFFFFFFFFF < threshold:
                m = self.next64() * n
        return m >> 64

    def shuffle(self, items: list[T]) -> None:
        """Durstenfeld's Fisher-Yates, with ``below`` inlined and the state kept local."""
        s = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            s = (s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            m = (z ^ (z >> 31)) * n
            if m & 0xFFFFFFFFFFFFFFFF < n:
                self.state = s
                threshold = (1 << 64) % n
                while m & 0xFFFFFFFFFFFFFFFF < threshold:
                    m = self.next64() * n
                s = self.state
            j = m >> 64
            items[i], items[j] = items[j], items[i]
        self.state = s


def seeded_ai_secret(seed: int | None, decks: Sequence[Sequence[int]] = ()) -> int:
    """The AI's secret of a seeded match, as the module's docstring defines it."""
    rng = SplitMix64((seed or 0) ^ AI_STREAM)
    for deck in decks:
        for card in deck:
            rng = SplitMix64(rng.next64() ^ card)
    return rng.next64() >> 1
