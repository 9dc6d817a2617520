"""What the domain refuses, each failure its own type so adapters can map it."""

from __future__ import annotations


class ScopaError(Exception):
    """Base of every rule the engine refuses to break."""


class CardNotationError(ScopaError, ValueError):
    def __init__(self, text: object) -> None:
        super().__init__(f"{text!r} is not a card: rank A234567JQK then suit CDHS, e.g. 7D")
        self.text = text


class InvalidSetup(ScopaError):
    """A match that cannot exist: each entry is (field path, reason)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{name}: {reason}" for name, reason in problems))
        self.problems = problems


class MatchNotActive(ScopaError):
    pass


class NotYourTurn(ScopaError):
    pass


class MoveNotationError(ScopaError, ValueError):
    def __init__(self, text: object) -> None:
        super().__init__(
            f"{text!r} is not a move: the card, a colon, the cards taken joined by +"
            " (7D:3C+4H; 7D: lays the card down)"
        )
        self.text = text


class InvalidMove(ScopaError):
    """A move the engine will not play, for one of the two reasons below."""


class IllegalMove(InvalidMove):
    """No legal move is the one named."""


class AmbiguousMove(InvalidMove):
    """The capture was left out and the card has more than one: the player must say which."""


class SeatNotOpen(ScopaError):
    pass


class NoSuchSeat(ScopaError):
    pass


class CannotAbort(ScopaError):
    """Only a match nobody has really played yet can be called off."""
