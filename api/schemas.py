"""Request bodies and problem details on the wire.

Request bodies are decoded by msgspec, strictly: no coercion, unknown fields rejected,
card strings by pattern, numbers by range. Answers are the service's own Structs
(``domain.service``) and the views (``domain.views``).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from domain.cards import parse_cards
from domain.match import Seat
from domain.views import MoveView
from service.matches import Setup

CARD_PATTERN = "^(A|[2-7]|J|Q|K)[CDHS]$"
# Integers travel as signed 64-bit: beyond that a number is out of range (400).
MAX_INT64 = 2**63 - 1

Card = Annotated[
    str,
    Meta(pattern=CARD_PATTERN, description="rank A 2-7 J Q K, then suit C D H S", examples=["7D"]),
]
Level = Literal["easy", "medium", "hard", "expert"]
# A display name: 1 to 32 code points once the U+0020 spaces around it are trimmed, none of
# Unicode category Cc (exactly U+0000-U+001F and U+007F-U+009F). The lookahead at the end
# keeps Python's ``$`` from matching before a final newline; in ECMA-262 it is a no-op.
_NAME_EDGE = r"[^\u0000-\u001f \u007f-\u009f]"
_NAME_INNER = r"[^\u0000-\u001f\u007f-\u009f]"
NAME_PATTERN = rf"^ *{_NAME_EDGE}(?:{_NAME_INNER}{{0,30}}{_NAME_EDGE})? *$(?!\n)"
Name = Annotated[
    str,
    Meta(
        pattern=NAME_PATTERN,
        description="A display name, public: 1 to 32 characters once the spaces (U+0020) "
        "around it are trimmed, none a control character (Unicode category Cc)",
        examples=["Ada"],
    ),
]


class Body(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Every request body: an unknown field is a 400."""


class HumanSeat(Body, tag_field="kind", tag="human", frozen=True):
    """A seat played by whoever holds its token, issued at create."""

    name: Name | UnsetType = UNSET


class OpenSeat(Body, tag_field="kind", tag="open", frozen=True):
    """A seat left for someone to take through join."""


class AiSeat(Body, tag_field="kind", tag="ai", frozen=True):
    """A seat the server plays at ``level``."""

    level: Level


SeatRequest = HumanSeat | OpenSeat | AiSeat


class RulesRequest(Body, frozen=True):
    """Rules options; each one omitted takes its default (RULES.md)."""

    target: Annotated[int, Meta(ge=1, le=100)] | UnsetType = UNSET
    hand_size: Literal[3, 6] = 3
    capture: Literal["match", "fifteen"] = "match"
    ace_sweeps: Literal["off", "sweep", "no_point"] = "off"
    king_of_diamonds: bool = False
    diamond_sequence: bool = False
    reveal_ai_hands: Annotated[
        bool,
        Meta(description="Training: every view lists the AI seats' cards in seats[].hand"),
    ] = False


class CreateMatch(Body, frozen=True):
    seats: Annotated[list[SeatRequest], Meta(min_length=2, max_length=4)]
    rules: RulesRequest = msgspec.field(default_factory=RulesRequest)
    seed: Annotated[int, Meta(ge=0, le=MAX_INT64)] | UnsetType = UNSET
    decks: list[list[Card]] = msgspec.field(default_factory=list)
    # In range but not a seat of this match is the domain's 422.
    first_dealer: Annotated[int, Meta(ge=0, le=MAX_INT64)] | UnsetType = UNSET


class MoveRequest(Body, frozen=True):
    card: Card
    capture: list[Card] | None = None


class JoinRequest(Body, frozen=True):
    """Join's one option: no body, or an object with at most a name."""

    name: Name | UnsetType = UNSET


class EmptyBody(Body, frozen=True):
    """No options: no body, or an empty object."""


class InvalidParam(msgspec.Struct, frozen=True):
    name: str
    reason: str


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """RFC 9457 problem details, with the fields this API adds where they apply."""

    type: str
    title: str
    status: int
    detail: str
    invalid_params: list[InvalidParam] | UnsetType = UNSET
    legal_moves: tuple[MoveView, ...] | UnsetType = UNSET


def name_of(name: str | UnsetType) -> str | None:
    """The name as the seat keeps it: trimmed of the spaces around it."""
    return None if name is UNSET else name.strip(" ")


def setup_of(body: CreateMatch) -> Setup:
    """The create request in engine terms; impossible combinations are the domain's call."""
    rules: dict[str, object] = {
        "hand_size": body.rules.hand_size,
        "capture": body.rules.capture,
        "ace_sweeps": body.rules.ace_sweeps,
        "king_of_diamonds": body.rules.king_of_diamonds,
        "diamond_sequence": body.rules.diamond_sequence,
        "reveal_ai_hands": body.rules.reveal_ai_hands,
    }
    if body.rules.target is not UNSET:
        rules["target"] = body.rules.target
    return Setup(
        seats=tuple(_seat(s) for s in body.seats),
        rules=rules,
        seed=None if body.seed is UNSET else body.seed,
        decks=tuple(tuple(parse_cards(deck)) for deck in body.decks),
        first_dealer=None if body.first_dealer is UNSET else body.first_dealer,
    )


def _seat(seat: SeatRequest) -> Seat:
    if isinstance(seat, AiSeat):
        return Seat("ai", seat.level)
    if isinstance(seat, HumanSeat):
        return Seat("human", name=name_of(seat.name))
    return Seat("open")
