"""What a process remembers of the matches it served: newest version wins, bounded."""

from __future__ import annotations

from scopa.domain.match import MatchState, Seat
from scopa.domain.rules import Rules
from scopa.service.ports import MatchRecord
from scopa.service.recent import RecentMatches


def record(match_id: str, version: int) -> MatchRecord:
    state = MatchState(Rules(), (Seat("human"), Seat("human")), rng=1, version=version)
    return MatchRecord(match_id, state, 0.0)


def test_a_token_seat_is_known_only_once_seen() -> None:
    recent = RecentMatches()
    recent.remember(record("m", 0))
    assert recent.seat_of("m", "hash") is None
    recent.remember(record("m", 1), "hash", 1)
    seen = recent.seat_of("m", "hash")
    assert seen == (record("m", 1), 1)
    assert recent.seat_of("other", "hash") is None


def test_an_older_version_never_replaces_a_newer_one() -> None:
    recent = RecentMatches()
    recent.remember(record("m", 5), "hash", 0)
    recent.remember(record("m", 3), "late", 1)  # a read that raced a save, arriving late
    seen = recent.seat_of("m", "late")
    assert seen == (record("m", 5), 1)
    recent.remember(record("m", 6))
    seen = recent.seat_of("m", "hash")
    assert seen == (record("m", 6), 0)  # the seats stay known


def test_the_least_recently_used_match_is_forgotten_first() -> None:
    recent = RecentMatches(capacity=2)
    recent.remember(record("a", 0), "ha", 0)
    recent.remember(record("b", 0), "hb", 0)
    assert recent.seat_of("a", "ha") is not None  # a is now the most recent
    recent.remember(record("c", 0), "hc", 0)
    assert recent.seat_of("b", "hb") is None
    assert recent.seat_of("a", "ha") is not None
    assert recent.seat_of("c", "hc") is not None
