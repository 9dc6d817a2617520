"""Rules options, agreed when a match is created (RULES.md, "Variants")."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.errors import InvalidSetup

Capture = Literal["match", "fifteen"]
AceSweeps = Literal["off", "sweep", "no_point"]
CAPTURE_MODES: tuple[str, ...] = ("match", "fifteen")
ACE_SWEEP_MODES: tuple[str, ...] = ("off", "sweep", "no_point")


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    target: int = 11
    hand_size: int = 3
    capture: Capture = "match"
    ace_sweeps: AceSweeps = "off"
    king_of_diamonds: bool = False
    diamond_sequence: bool = False
    # Training (seed 004's Reveal button).
    reveal_ai_hands: Annotated[
        bool, msgspec.Meta(description="Every view lists the AI seats' cards in seats[].hand")
    ] = False


def make_rules(
    *,
    target: int | None = None,
    hand_size: int = 3,
    capture: str = "match",
    ace_sweeps: str = "off",
    king_of_diamonds: bool = False,
    diamond_sequence: bool = False,
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
    if problems:
        raise InvalidSetup(problems)
    return Rules(
        target=target,
        hand_size=hand_size,
        capture=capture,  # type: ignore[arg-type]
        ace_sweeps=ace_sweeps,  # type: ignore[arg-type]
        king_of_diamonds=king_of_diamonds,
        diamond_sequence=diamond_sequence,
        reveal_ai_hands=reveal_ai_hands,
    )
