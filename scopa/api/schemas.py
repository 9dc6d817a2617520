"""Request bodies and problem details on the wire.

Request bodies are decoded by msgspec, strictly: no coercion, unknown fields rejected,
card strings by pattern, numbers by range. Answers are the service's own Structs
(``service.answers``) and the views (``contract.views``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from scopa.contract.views import MoveView
from scopa.domain.ai import Level
from scopa.domain.cards import parse_cards
from scopa.domain.match import Seat
from scopa.domain.rules import (
    TARGET_MAX,
    TARGET_MIN,
    TURN_SECONDS_MAX,
    TURN_SECONDS_MIN,
    AceSweeps,
    Capture,
    DealKind,
    HandSize,
    OnTimeout,
)
from scopa.service.challenges import EXPIRES_IN, EXPIRES_MAX, EXPIRES_MIN
from scopa.service.handles import HANDLE_PATTERN
from scopa.service.seating import Setup

CARD_PATTERN = "^(A|[2-7]|J|Q|K)[CDHS]$"
# Integers travel as signed 64-bit: beyond that a number is out of range (400).
MAX_INT64 = 2**63 - 1

Card = Annotated[
    str,
    Meta(pattern=CARD_PATTERN, description="rank A 2-7 J Q K, then suit C D H S", examples=["7D"]),
]
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


Label = Annotated[
    str,
    Meta(
        pattern=NAME_PATTERN,
        description="A token's label, for its owner: as a display name, 1 to 32 characters",
        examples=["laptop"],
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

    level: Annotated[Level, Meta(description="How well the server plays the seat")]


SeatRequest = HumanSeat | OpenSeat | AiSeat


class RulesRequest(Body, frozen=True):
    """Rules options; each one omitted takes its default (docs/rules.md)."""

    target: (
        Annotated[
            int,
            Meta(
                ge=TARGET_MIN,
                le=TARGET_MAX,
                description="The match points that win (by default 11, or 21 under "
                "`diamond_sequence`)",
            ),
        ]
        | UnsetType
    ) = UNSET
    hand_size: Annotated[
        HandSize, Meta(description="Cards dealt to each seat in a packet; 6: 2 players only")
    ] = 3
    capture: Annotated[
        Capture,
        Meta(
            description="`match`: a card takes one table card of its value, else one group "
            "adding up to it; `fifteen`: the card and what it takes add up to 15"
        ),
    ] = "match"
    ace_sweeps: Annotated[
        AceSweeps,
        Meta(
            description="`sweep`: an ace played to a non-empty table with no ace on it takes "
            "the whole table, a sweep as usual; `no_point`: the same, but no capture by an "
            "ace scores a sweep; not with `capture: fifteen`"
        ),
    ] = "off"
    king_of_diamonds: Annotated[
        bool, Meta(description="true: one more point to the team that takes the KD (re bello)")
    ] = False
    diamond_sequence: Annotated[
        bool,
        Meta(
            description="true: a team holding AD 2D 3D scores 3, and one more for each further "
            "diamond in unbroken order; the target becomes 21 unless given"
        ),
    ] = False
    turn_seconds: Annotated[
        Annotated[int, Meta(ge=TURN_SECONDS_MIN, le=TURN_SECONDS_MAX)] | None,
        Meta(description="Seconds a human seat has for each turn; null (the default): no clock"),
    ] = None
    on_timeout: Annotated[
        OnTimeout,
        Meta(
            description="When a turn's time runs out: autoplay (the hard AI plays for the "
            "seat, and 3 timeouts in a row lose) or forfeit (the seat's team loses); "
            "no effect without turn_seconds"
        ),
    ] = "autoplay"
    reveal_ai_hands: Annotated[
        bool,
        Meta(description="Training: every view lists the AI seats' cards in seats[].hand"),
    ] = False
    deal: Annotated[
        DealKind,
        Meta(
            description="`scopa`: 3-card packets from the stock, 4 cards face up at the "
            "start; `scopone` (4 seats only, not with 6-card hands): all 40 cards dealt at "
            "once, ten a seat, nothing on the table, no stock"
        ),
    ] = "scopa"


class CreateMatch(Body, frozen=True):
    seats: Annotated[
        list[SeatRequest],
        Meta(
            min_length=2,
            max_length=4,
            description="2 or 4 seats in turn order; with 4, seats 0 and 2 play against 1 and 3",
        ),
    ]
    rules: Annotated[
        RulesRequest, Meta(description="Rules options; each one left out takes its default")
    ] = msgspec.field(default_factory=RulesRequest)
    seed: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=MAX_INT64,
                description="The match's random generator: the same seed and options give the "
                "same shuffles; left out, the server draws a secret one",
            ),
        ]
        | UnsetType
    ) = UNSET
    decks: Annotated[
        list[list[Card]],
        Meta(
            description="Explicit orders of the 40 cards for deals 1, 2, ..., dealt from the "
            "first; deals past the list are shuffled from the generator"
        ),
    ] = msgspec.field(default_factory=list)
    # A seat of some match (0..3) but not of this one is the domain's 422.
    first_dealer: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=3,
                description="The seat that deals first (0 to 3, and a seat of the match); "
                "left out, the generator draws it",
            ),
        ]
        | UnsetType
    ) = UNSET
    rated: Annotated[
        bool,
        Meta(
            description="A rated match: created with a player token, no seed or decks, 2 or "
            "4 players to 11 or 21; its open seats are for players only"
        ),
    ] = False


class RegisterPlayer(Body, frozen=True):
    handle: Annotated[
        str,
        Meta(
            pattern=HANDLE_PATTERN,
            description="3 to 24 ASCII letters, digits, `_` and `-`: unique as people read "
            "it (case, 0 and o, 1 i l, - and _ are one)",
            examples=["ada"],
        ),
    ]
    name: Name | UnsetType = UNSET
    kind: Annotated[Literal["human", "bot"], Meta(description="`human` (the default) or `bot`")] = (
        "human"
    )
    label: Label | UnsetType = UNSET


class ChallengeRequest(Body, frozen=True):
    opponent: (
        Annotated[
            str,
            Meta(
                pattern=HANDLE_PATTERN,
                description="The handle of the player challenged; left out: an open "
                "challenge, which any player may accept",
            ),
        ]
        | UnsetType
    ) = UNSET
    level: (
        Annotated[
            Level, Meta(description="Instead of an opponent: an AI level, which accepts at once")
        ]
        | UnsetType
    ) = UNSET
    rules: Annotated[
        RulesRequest, Meta(description="Rules options; each one left out takes its default")
    ] = msgspec.field(default_factory=RulesRequest)
    rated: Annotated[
        bool, Meta(description="A rated match (2 players to 11 or 21, no AI hands shown)")
    ] = False
    expires_in: Annotated[
        int,
        Meta(
            ge=EXPIRES_MIN,
            le=EXPIRES_MAX,
            description="Seconds the challenge stays open to accept",
        ),
    ] = EXPIRES_IN


class NewToken(Body, frozen=True):
    """A new player token's one option: no body, or an object with at most a label."""

    label: Label | UnsetType = UNSET


class MoveRequest(Body, frozen=True):
    card: Annotated[
        Card,
        Meta(description="The card to play from the hand: rank A 2-7 J Q K, then suit C D H S"),
    ]
    capture: Annotated[
        list[Card] | None,
        Meta(
            description="Exactly the table cards it takes (`[]`: none); left out or null: "
            "the card's only legal choice, or 422 when it has several"
        ),
    ] = None


class JoinRequest(Body, frozen=True):
    """Join's one option: no body, or an object with at most a name."""

    name: Name | UnsetType = UNSET


class NoOptions(Body, frozen=True):
    """No options: no body, or an empty object."""


class InvalidParam(msgspec.Struct, frozen=True):
    name: Annotated[
        str,
        Meta(
            description="The bad field as a dotted path with indexes in brackets "
            "(`seats[1].level`), or the parameter or header"
        ),
    ]
    reason: Annotated[str, Meta(description="What is wrong with it")]


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """RFC 9457 problem details, with the fields this API adds where they apply."""

    type: Annotated[
        str,
        Meta(
            description="A stable URI naming the failure (`.../illegal-move`, "
            "`.../not-your-turn`, ...): branch on it, not on `detail`"
        ),
    ]
    title: Annotated[str, Meta(description="A short summary of the failure's type")]
    status: Annotated[int, Meta(description="The HTTP status code of the answer")]
    detail: Annotated[str, Meta(description="What went wrong with this request")]
    invalid_params: (
        Annotated[list[InvalidParam], Meta(description="Each bad field, on 400 and 422 validation")]
        | UnsetType
    ) = UNSET
    legal_moves: (
        Annotated[
            tuple[MoveView, ...],
            Meta(description="On an illegal move: every legal move of the seat"),
        ]
        | UnsetType
    ) = UNSET


def name_of(name: str | UnsetType) -> str | None:
    """The name as the seat keeps it: trimmed of the spaces around it."""
    return None if name is UNSET else name.strip(" ")


def setup_of(body: CreateMatch) -> Setup:
    """The create request in engine terms; impossible combinations are the domain's call."""
    return Setup(
        seats=tuple(_seat(s) for s in body.seats),
        rules=rules_of(body.rules),
        seed=None if body.seed is UNSET else body.seed,
        decks=tuple(tuple(parse_cards(deck)) for deck in body.decks),
        first_dealer=None if body.first_dealer is UNSET else body.first_dealer,
        rated=body.rated,
    )


def rules_of(request: RulesRequest) -> dict[str, Any]:
    """The rules options as ``make_rules`` takes them."""
    rules: dict[str, Any] = {
        "hand_size": request.hand_size,
        "capture": request.capture,
        "ace_sweeps": request.ace_sweeps,
        "king_of_diamonds": request.king_of_diamonds,
        "diamond_sequence": request.diamond_sequence,
        "turn_seconds": request.turn_seconds,
        "on_timeout": request.on_timeout,
        "reveal_ai_hands": request.reveal_ai_hands,
        "deal": request.deal,
    }
    if request.target is not UNSET:
        rules["target"] = request.target
    return rules


def _seat(seat: SeatRequest) -> Seat:
    if isinstance(seat, AiSeat):
        return Seat("ai", seat.level)
    if isinstance(seat, HumanSeat):
        return Seat("human", name=name_of(seat.name))
    return Seat("open")
