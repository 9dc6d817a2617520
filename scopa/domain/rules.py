"""Rules options, agreed when a match is created (RULES.md, "Variants")."""

from __future__ import annotations

from typing import Literal

import msgspec

from scopa.domain.errors import InvalidSetup

Capture = Literal["match", "fifteen"]
AceSweeps = Literal["off", "sweep", "no_point"]
OnTimeout = Literal["autoplay", "forfeit"]
CAPTURE_MODES: tuple[str, ...] = ("match", "fifteen")
ACE_SWEEP_MODES: tuple[str, ...] = ("off", "sweep", "no_point")
ON_TIMEOUT_MODES: tuple[str, ...] = ("autoplay", "forfeit")
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
    # Training (seed 004's Reveal button).
    reveal_ai_hands: bool = False


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
    players: int = 2,
) -> Rules:
    """Rules with defaults filled in (target 21 under the diamond sequence), or InvalidSetup."""
    if target is None:
        target = 21 if diamond_sequence else 11
    problems: list[tuple[str, str]] = []
    if players not in (2, 4):
        problems.append(("seats", f"{players} seats: Scopa is played by 2 or 4"))
    if not 1 <= target <= 100:
        problems.append(("rules.target", "must be 1..100"))
    if hand_size not in (3, 6):
        problems.append(("rules.hand_size", "must be 3 or 6"))
    elif hand_size == 6 and players != 2:
        problems.append(("rules.hand_size", "6-card hands are for 2 players only"))
    if capture not in CAPTURE_MODES:
        problems.append(("rules.capture", f"must be one of {', '.join(CAPTURE_MODES)}"))
    if ace_sweeps not in ACE_SWEEP_MODES:
        problems.append(("rules.ace_sweeps", f"must be one of {', '.join(ACE_SWEEP_MODES)}"))
    elif ace_sweeps != "off" and capture == "fifteen":
        problems.append(("rules.ace_sweeps", "ace sweeps cannot be combined with capture fifteen"))
    if turn_seconds is not None and not TURN_SECONDS_MIN <= turn_seconds <= TURN_SECONDS_MAX:
        problems.append(
            ("rules.turn_seconds", f"must be {TURN_SECONDS_MIN}..{TURN_SECONDS_MAX} or null")
        )
    if on_timeout not in ON_TIMEOUT_MODES:
        problems.append(("rules.on_timeout", f"must be one of {', '.join(ON_TIMEOUT_MODES)}"))
    if problems:
        raise InvalidSetup(problems)
    return Rules(
        target=target,
        hand_size=hand_size,
        capture=capture,  # type: ignore[arg-type]
        ace_sweeps=ace_sweeps,  # type: ignore[arg-type]
        king_of_diamonds=king_of_diamonds,
        diamond_sequence=diamond_sequence,
        turn_seconds=turn_seconds,
        on_timeout=on_timeout,  # type: ignore[arg-type]
        reveal_ai_hands=reveal_ai_hands,
    )
