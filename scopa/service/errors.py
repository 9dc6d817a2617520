"""What the use cases refuse for reasons outside the game's rules (those are in
``domain.errors``). Each failure is its own type, so the HTTP adapter can map it."""

from __future__ import annotations

from scopa.contract.views import MoveView
from scopa.domain.errors import IllegalMove, ScopaError


class ServiceError(ScopaError):
    """A request the service refuses for reasons outside the game's rules."""


class MatchNotFound(ServiceError):
    pass


class InvalidToken(ServiceError):
    pass


class StaleVersion(ServiceError):
    pass


class IdempotencyKeyReused(ServiceError):
    pass


class IdempotencyKeyInFlight(ServiceError):
    pass


class UnknownLevel(ServiceError):
    pass


class InvalidCursor(ServiceError):
    pass


class MatchNotFinished(ServiceError):
    """What is only shown once a match is over (its record) was asked for before."""


class AiUnavailable(ServiceError):
    """No process took the AI work asked for in time (no worker runs, or all are busy);
    asking again later will do."""


class Busy(ServiceError):
    """The match kept changing under the request; retrying later will do."""


class MoveRefused(IllegalMove):
    """An illegal move, with the moves the seat could have made."""

    def __init__(self, detail: str, legal: tuple[MoveView, ...]) -> None:
        super().__init__(detail)
        self.legal_moves = legal


class TokenNotFound(ServiceError):
    """The player has no live token of that id."""


class PlayerNotFound(ServiceError):
    """No such player, or a deleted one."""


class ChallengeNotFound(ServiceError):
    pass


class ChallengeNotPending(ServiceError):
    """The challenge was accepted, declined, withdrawn, or has expired."""


class NotYourChallenge(ServiceError):
    """The challenge is another player's to accept, decline or withdraw."""


class SameOrigin(ServiceError):
    """Two seats of a rated match would be held by players registered from one address."""
