"""Rules options, agreed when a match is created (docs/rules.md, "Variants")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import msgspec

from scopa.domain.cards import DECK
from scopa.domain.errors import InvalidSetup

# The one list of each option's values and ranges: ``setup_problems`` checks them, the
# API's request schema is written with them.
PLAYERS = (2, 4)
HandSize = Literal[3, 6]
Capture = Literal["match", "fifteen"]
AceSweeps = Literal["off", "sweep", "no_point"]
OnTimeout = Literal["autoplay", "forfeit"]
# "scopa": 3-card packets from a stock, 4 cards up; "scopone": all 40 cards dealt at once,
# ten a seat, to 4 players, the table empty.
DealKind = Literal["scopa", "scopone"]
HAND_SIZES: tuple[int, ...] = get_args(HandSize)
CAPTURE_MODES: tuple[str, ...] = get_args(Capture)
ACE_SWEEP_MODES: tuple[str, ...] = get_args(AceSweeps)
ON_TIMEOUT_MODES: tuple[str, ...] = get_args(OnTimeout)
DEAL_KINDS: tuple[str, ...] = get_args(DealKind)
SCOPONE_PLAYERS = 4
TARGET_MIN = 1
TARGET_MAX = 100
TURN_SECONDS_MIN = 5
TURN_SECONDS_MAX = 86_400


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    target: int = 11
    hand_size: int = 3
    capture: Capture = "match"
    ace_sweeps: AceSweeps = "off"
    king_of_diamonds: bool = False
    diamond_sequence: bool = False
    turn_seconds: int | None = None  # a human seat's time for each turn; None: no clock
    on_timeout: OnTimeout = "autoplay"
    # Training (the table's Reveal button).
    reveal_ai_hands: bool = False
    # Last, with its default: rules stored before it existed decode as "scopa".
    deal: DealKind = "scopa"


def make_rules(
    *,
    target: int | None = None,
    hand_size: int = 3,
    capture: str = "match",
    ace_sweeps: str = "off",
    king_of_diamonds: bool = False,
    diamond_sequence: bool = False,
    turn_seconds: int | None = None,
    on_timeout: str = "autoplay",
    reveal_ai_hands: bool = False,
    deal: str = "scopa",
    players: int = 2,
) -> Rules:
    """Rules with defaults filled in (target 21 under the diamond sequence), or InvalidSetup."""
    if target is None:
        target = 21 if diamond_sequence else 11
    rules = Rules(
        target=target,
        hand_size=hand_size,
        capture=capture,  # type: ignore[arg-type]
        ace_sweeps=ace_sweeps,  # type: ignore[arg-type]
        king_of_diamonds=king_of_diamonds,
        diamond_sequence=diamond_sequence,
        turn_seconds=turn_seconds,
        on_timeout=on_timeout,  # type: ignore[arg-type]
        reveal_ai_hands=reveal_ai_hands,
        deal=deal,  # type: ignore[arg-type]
    )
    problems = setup_problems(rules, players)
    if problems:
        raise InvalidSetup(problems)
    return rules


def setup_problems(
    rules: Rules,
    players: int,
    decks: Sequence[Sequence[int]] = (),
    first_dealer: int | None = None,
) -> list[tuple[str, str]]:
    """Every reason a match of these rules, seats, decks and first dealer cannot exist, as
    (field path, reason) in the order of a create request; none for a possible one.

    The one validator of a setup: ``Rules`` are checked here, not by their type, since a
    ``Rules`` built or decoded directly must not slip through either."""
    problems: list[tuple[str, str]] = []
    if players not in PLAYERS:
        problems.append(("seats", f"{players} seats: Scopa is played by 2 or 4"))
    if not TARGET_MIN <= rules.target <= TARGET_MAX:
        problems.append(("rules.target", f"must be {TARGET_MIN}..{TARGET_MAX}"))
    if rules.hand_size not in HAND_SIZES:
        problems.append(("rules.hand_size", "must be 3 or 6"))
    elif rules.hand_size == 6 and rules.deal == "scopone":
        problems.append(("rules.hand_size", "scopone deals ten cards a seat at once: not with 6"))
    elif rules.hand_size == 6 and players != 2:
        problems.append(("rules.hand_size", "6-card hands are for 2 players only"))
    if rules.capture not in CAPTURE_MODES:
        problems.append(("rules.capture", f"must be one of {', '.join(CAPTURE_MODES)}"))
    if rules.ace_sweeps not in ACE_SWEEP_MODES:
        problems.append(("rules.ace_sweeps", f"must be one of {', '.join(ACE_SWEEP_MODES)}"))
    elif rules.ace_sweeps != "off" and rules.capture == "fifteen":
        problems.append(("rules.ace_sweeps", "ace sweeps cannot be combined with capture fifteen"))
    seconds = rules.turn_seconds
    if seconds is not None and not TURN_SECONDS_MIN <= seconds <= TURN_SECONDS_MAX:
        problems.append(
            ("rules.turn_seconds", f"must be {TURN_SECONDS_MIN}..{TURN_SECONDS_MAX} or null")
        )
    if rules.on_timeout not in ON_TIMEOUT_MODES:
        problems.append(("rules.on_timeout", f"must be one of {', '.join(ON_TIMEOUT_MODES)}"))
    if rules.deal not in DEAL_KINDS:
        problems.append(("rules.deal", f"must be one of {', '.join(DEAL_KINDS)}"))
    elif rules.deal == "scopone" and players != SCOPONE_PLAYERS:
        problems.append(("rules.deal", f"scopone is for 4 players, not {players}"))
    for i, deck in enumerate(decks):
        if sorted(deck) != list(DECK):
            problems.append((f"decks[{i}]", "must be a permutation of the 40 cards"))
    if first_dealer is not None and not 0 <= first_dealer < max(players, 1):
        problems.append(("first_dealer", f"must be a seat, 0..{players - 1}"))
    return problems
