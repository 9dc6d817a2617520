"""The rules of a match on the wire: the domain's ``Rules``, described."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta
from msgspec.structs import astuple

from scopa.domain import rules as domain
from scopa.domain.rules import AceSweeps, Capture, DealKind, OnTimeout


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    target: Annotated[
        int,
        Meta(
            description="The match points that win, 1 to 100 (by default 11, or 21 under "
            "`diamond_sequence`); checked only after a whole deal is scored"
        ),
    ] = 11
    hand_size: Annotated[
        int, Meta(description="Cards dealt to each seat in a packet: 3, or 6 with 2 players")
    ] = 3
    capture: Annotated[
        Capture,
        Meta(
            description="`match`: a card takes one table card of its value, else one group "
            "adding up to it; `fifteen`: the card and the card or group it takes add up to 15"
        ),
    ] = "match"
    ace_sweeps: Annotated[
        AceSweeps,
        Meta(
            description="`off`: an ace captures as any card; `sweep`: an ace played to a "
            "non-empty table with no ace on it takes the whole table, a sweep as usual; "
            "`no_point`: the same, but no capture by an ace scores a sweep"
        ),
    ] = "off"
    king_of_diamonds: Annotated[
        bool, Meta(description="Whether the king of diamonds (re bello) scores a point")
    ] = False
    diamond_sequence: Annotated[
        bool,
        Meta(description="Whether the diamonds in unbroken order from A-2-3 score their value"),
    ] = False
    turn_seconds: Annotated[
        int | None,
        Meta(description="Seconds a human seat has for each turn (5..86400); null: no clock"),
    ] = None
    on_timeout: Annotated[
        OnTimeout,
        Meta(
            description="When a turn's time runs out: autoplay (the hard AI plays for the "
            "seat; 3 timeouts in a row lose) or forfeit (the seat's team loses)"
        ),
    ] = "autoplay"
    # Training (the table's Reveal button).
    reveal_ai_hands: Annotated[
        bool, Meta(description="Every view lists the AI seats' cards in seats[].hand")
    ] = False
    deal: Annotated[
        DealKind,
        Meta(
            description="`scopa`: 3-card packets from the stock, 4 cards face up at the "
            "start; `scopone` (4 seats): all 40 cards dealt at once, ten a seat, the "
            "table empty"
        ),
    ] = "scopa"


def rules_view(rules: domain.Rules) -> Rules:
    # The twins have the same fields in the same order (tests/unit/test_contract_twins.py).
    return Rules(*astuple(rules))
