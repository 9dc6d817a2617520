"""The tables, apart from the domain types: a match row holds its state as msgspec bytes,
plus the few columns that queries filter on. Times are unix seconds (floats)."""

from __future__ import annotations

from sqlalchemy import Boolean, Double, ForeignKey, Index, Integer, LargeBinary, MetaData, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    version: Mapped[int]
    status: Mapped[str] = mapped_column(String(16))
    state: Mapped[bytes] = mapped_column(LargeBinary)
    initial: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[float] = mapped_column(Double)
    updated_at: Mapped[float] = mapped_column(Double)
    has_open_seat: Mapped[bool]
    # The next moment something must happen to the match (service.lifecycle); NULL: none.
    due_at: Mapped[float | None] = mapped_column(Double)
    # Set on a match that counts toward its creator's "at once" quota (service.quotas):
    # the creator's client (an address or a /64), and the quota's name; NULL otherwise.
    owner: Mapped[str | None] = mapped_column(String)
    quota: Mapped[str | None] = mapped_column(String(16))

    __table_args__ = (
        # The lobby: equality on the flag, then already in (created_at, id) order.
        Index(None, "has_open_seat", "created_at", "id"),
        # The deadline runners' range scan, every half second in each process.
        Index(None, "due_at"),
        Index(None, "owner", "quota", "status"),
    )


class SeatRow(Base):
    __tablename__ = "seats"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    # sha256 hex of the bearer token; the token itself is never stored here.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)


class EventRow(Base):
    """Append-only: the key (match_id, seq) makes a second writer of a seq fail."""

    __tablename__ = "events"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True)
    payload: Mapped[bytes] = mapped_column(LargeBinary)


class IdempotencyRow(Base):
    """A claimed key: ``body`` stays NULL while its request runs, then holds the answer.

    Neither the client's key nor the answer is here in the clear: ``key`` is a hash of the
    key, ``body`` the answer sealed under a key derived from it (service.idempotency)."""

    __tablename__ = "idempotency"

    scope: Mapped[str] = mapped_column(String, primary_key=True)
    key: Mapped[str] = mapped_column(String, primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[float] = mapped_column(Double, index=True)


class ReviewRow(Base):
    """The coach's review of one seat of a finished match, kept once computed."""

    __tablename__ = "reviews"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[bytes] = mapped_column(LargeBinary)  # domain.ai.review.Review, msgpack
    created_at: Mapped[float] = mapped_column(Double)


class ReviewJobRow(Base):
    """A review asked for by an API process that runs no AI, until a worker keeps it in
    ``reviews`` (infra.reviews). A worker claims it by setting ``lease_until`` and
    renews the lease while it computes; one that dies lets it lapse, and another takes it."""

    __tablename__ = "review_jobs"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    asked_at: Mapped[float] = mapped_column(Double, index=True)
    lease_until: Mapped[float | None] = mapped_column(Double)
    leased_by: Mapped[str | None] = mapped_column(String)


class HintJobRow(Base):
    """A hint asked for by an API process that runs no AI (infra.hints): the state
    it is for, until a worker writes ``answer`` and the asking process reads and deletes
    the row; deleted unanswered when the asking client went away. A worker claims it by
    setting ``lease_until``."""

    __tablename__ = "hint_jobs"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"))
    state: Mapped[bytes] = mapped_column(LargeBinary)  # domain.match.MatchState, msgpack
    seat: Mapped[int] = mapped_column(Integer)
    level: Mapped[str] = mapped_column(String)
    asked_at: Mapped[float] = mapped_column(Double, index=True)
    lease_until: Mapped[float | None] = mapped_column(Double)
    leased_by: Mapped[str | None] = mapped_column(String)
    answer: Mapped[bytes | None] = mapped_column(LargeBinary)  # the move and its reason


class AiTurnRow(Base):
    """A match whose seat to play is an AI: one row while the turn is pending, written in
    the same transaction as the match (infra.ai_turns). A runner claims a row by setting
    ``lease_until``; a runner that dies with the lease lets it lapse, and another claims
    the turn then."""

    __tablename__ = "ai_turns"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    # False for a match of AI seats only: its turns wait behind those of humans' matches.
    human: Mapped[bool] = mapped_column(Boolean)
    # Not to be played before (the pace of AI-only matches), unix seconds.
    ready_at: Mapped[float] = mapped_column(Double)
    lease_until: Mapped[float | None] = mapped_column(Double)
    # The process holding the lease (infra.ai_runner.worker_id), renewing it as it plays.
    leased_by: Mapped[str | None] = mapped_column(String)

    __table_args__ = (Index(None, "human", "ready_at"),)


class AiWorkerRow(Base):
    """A process that plays AI turns, as last heard from: /ready counts the live ones."""

    __tablename__ = "ai_workers"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    seen_at: Mapped[float] = mapped_column(Double, index=True)
    # Decisions it can make at once (its AI pool's processes); 0 while its pool is missing.
    capacity: Mapped[int] = mapped_column(Integer)


class LimitCountRow(Base):
    """Requests counted under a rate limit, per client and fixed window (api.ratelimit),
    shared by every process. Rows of windows that have ended are purged. Unlogged on
    Postgres, as stream_leases (migration 0006)."""

    __tablename__ = "limit_counts"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    client: Mapped[str] = mapped_column(String, primary_key=True)
    period: Mapped[int] = mapped_column(Integer, primary_key=True)
    used: Mapped[int]
    cap: Mapped[int]  # the limit when the window opened: a count stops there
    ends_at: Mapped[float] = mapped_column(Double, index=True)


class StreamLeaseRow(Base):
    """An open event stream or long poll, counted by the "at once" stream quotas. The
    process holding it renews ``expires_at``; a dead process's leases lapse by it."""

    __tablename__ = "stream_leases"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    process: Mapped[str] = mapped_column(String, index=True)
    client: Mapped[str] = mapped_column(String, index=True)
    match_id: Mapped[str | None] = mapped_column(String, index=True)  # NULL: a long poll
    expires_at: Mapped[float] = mapped_column(Double, index=True)


class PlayerRow(Base):
    """A registered player. A deleted one stays, without its name, so that its handle is
    never given out again and the matches it played still name it."""

    __tablename__ = "players"

    handle: Mapped[str] = mapped_column(String(24), primary_key=True)
    # The handle as people read it (service.handles): unique, so look-alikes collide.
    handle_key: Mapped[str] = mapped_column(String(24), unique=True)
    name: Mapped[str | None] = mapped_column(String)  # NULL once deleted
    kind: Mapped[str] = mapped_column(String(8))
    # A hash of the client address (its /64 for IPv6) the player registered from.
    origin: Mapped[str] = mapped_column(String(64))
    joined_at: Mapped[float] = mapped_column(Double)
    deleted_at: Mapped[float | None] = mapped_column(Double)


class PlayerTokenRow(Base):
    """A player's API token, as its hash; revoking it deletes the row."""

    __tablename__ = "player_tokens"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    handle: Mapped[str] = mapped_column(ForeignKey("players.handle"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String)
    created_at: Mapped[float] = mapped_column(Double)
    last_used_at: Mapped[float | None] = mapped_column(Double)


class MatchPlayerRow(Base):
    """A seat held by a player, written with the match or the join that seated it; its
    ``result`` (won, lost, or none for a match ended with no winner) with the finish."""

    __tablename__ = "match_players"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    handle: Mapped[str] = mapped_column(ForeignKey("players.handle"))
    created_at: Mapped[float] = mapped_column(Double)  # the match's
    result: Mapped[str | None] = mapped_column(String(8))
    finished_at: Mapped[float | None] = mapped_column(Double)
    # A rated match: its format, and the player's rating in it once the match was rated.
    format: Mapped[str | None] = mapped_column(String(8))
    rating: Mapped[float | None] = mapped_column(Double)

    __table_args__ = (
        # A player's matches, newest first, and its counts.
        Index(None, "handle", "created_at", "match_id"),
        Index(None, "handle", "result"),
    )


class RatingRow(Base):
    """A player's Glicko-2 rating in one format (domain.rated)."""

    __tablename__ = "ratings"

    handle: Mapped[str] = mapped_column(ForeignKey("players.handle"), primary_key=True)
    format: Mapped[str] = mapped_column(String(8), primary_key=True)
    rating: Mapped[float] = mapped_column(Double)
    deviation: Mapped[float] = mapped_column(Double)
    volatility: Mapped[float] = mapped_column(Double)
    games: Mapped[int]
    # The leaderboard: established players (deviation at most domain.rated.PROVISIONAL)
    # apart from provisional ones, each best first.
    established: Mapped[bool]

    __table_args__ = (Index(None, "format", "established", "rating", "handle"),)


class RatedMatchRow(Base):
    """A rated match whose ratings were applied: its key makes a second rating fail."""

    __tablename__ = "rated_matches"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    rated_at: Mapped[float] = mapped_column(Double)


class ChallengeRow(Base):
    """A challenge: to a player, to anyone (``opponent`` and ``level`` NULL), or to an AI
    level. ``status`` pending until accepted (``match_id`` set), declined or withdrawn; a
    pending one past ``expires_at`` reads as expired."""

    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    challenger: Mapped[str] = mapped_column(ForeignKey("players.handle"))
    opponent: Mapped[str | None] = mapped_column(ForeignKey("players.handle"))
    level: Mapped[str | None] = mapped_column(String(16))
    rules: Mapped[bytes] = mapped_column(LargeBinary)  # domain.rules.Rules, msgpack
    rated: Mapped[bool]
    status: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[float] = mapped_column(Double)
    expires_at: Mapped[float] = mapped_column(Double)
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"))

    __table_args__ = (
        # A player's incoming and outgoing ones, and its challenges of the last minute.
        Index(None, "opponent", "status"),
        Index(None, "challenger", "created_at"),
        # The open ones, newest first.
        Index(None, "status", "created_at"),
    )


class InboxRow(Base):
    """What a player's challenge stream sends, in order: each a challenge as it stood
    (its wire JSON), numbered from 1 per player."""

    __tablename__ = "inbox"

    handle: Mapped[str] = mapped_column(ForeignKey("players.handle"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[bytes] = mapped_column(LargeBinary)
