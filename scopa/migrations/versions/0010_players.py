"""players, player_tokens, match_players, ratings, rated_matches, challenges, inbox

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04

A player registers a handle and holds API tokens (kept as hashes); seats it takes are
rows of ``match_players``, written with the match or the join; a rated match's finish
updates ``ratings`` once, ``rated_matches`` keyed by the match making a second try fail.
A challenge is a row of ``challenges``; what a player's challenge stream sends, the rows
of ``inbox``, numbered per player.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("handle", sa.String(24), nullable=False),
        sa.Column("handle_key", sa.String(24), nullable=False),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("origin", sa.String(64), nullable=False),
        sa.Column("joined_at", sa.Double(), nullable=False),
        sa.Column("deleted_at", sa.Double(), nullable=True),
        sa.PrimaryKeyConstraint("handle", name=op.f("pk_players")),
        sa.UniqueConstraint("handle_key", name=op.f("uq_players_handle_key")),
    )
    op.create_table(
        "player_tokens",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("handle", sa.String(24), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("last_used_at", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(
            ["handle"], ["players.handle"], name=op.f("fk_player_tokens_handle_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_player_tokens_token_hash")),
    )
    op.create_index(op.f("ix_player_tokens_handle"), "player_tokens", ["handle"])
    op.create_table(
        "match_players",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("handle", sa.String(24), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("finished_at", sa.Double(), nullable=True),
        sa.Column("format", sa.String(8), nullable=True),
        sa.Column("rating", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_match_players_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["handle"], ["players.handle"], name=op.f("fk_match_players_handle_players")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_players")),
    )
    op.create_index(
        op.f("ix_match_players_handle_created_at_match_id"),
        "match_players",
        ["handle", "created_at", "match_id"],
    )
    op.create_index(
        op.f("ix_match_players_handle_result"), "match_players", ["handle", "result"]
    )
    op.create_table(
        "ratings",
        sa.Column("handle", sa.String(24), nullable=False),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("rating", sa.Double(), nullable=False),
        sa.Column("deviation", sa.Double(), nullable=False),
        sa.Column("volatility", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("established", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["handle"], ["players.handle"], name=op.f("fk_ratings_handle_players")
        ),
        sa.PrimaryKeyConstraint("handle", "format", name=op.f("pk_ratings")),
    )
    op.create_index(
        op.f("ix_ratings_format_established_rating_handle"),
        "ratings",
        ["format", "established", "rating", "handle"],
    )
    op.create_table(
        "rated_matches",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("rated_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_rated_matches_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_rated_matches")),
    )
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("challenger", sa.String(24), nullable=False),
        sa.Column("opponent", sa.String(24), nullable=True),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("rules", sa.LargeBinary(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("expires_at", sa.Double(), nullable=False),
        sa.Column("match_id", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(
            ["challenger"], ["players.handle"], name=op.f("fk_challenges_challenger_players")
        ),
        sa.ForeignKeyConstraint(
            ["opponent"], ["players.handle"], name=op.f("fk_challenges_opponent_players")
        ),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_challenges_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
    )
    op.create_index(
        op.f("ix_challenges_opponent_status"), "challenges", ["opponent", "status"]
    )
    op.create_index(
        op.f("ix_challenges_challenger_created_at"), "challenges", ["challenger", "created_at"]
    )
    op.create_index(op.f("ix_challenges_status_created_at"), "challenges", ["status", "created_at"])
    op.create_table(
        "inbox",
        sa.Column("handle", sa.String(24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["handle"], ["players.handle"], name=op.f("fk_inbox_handle_players")),
        sa.PrimaryKeyConstraint("handle", "seq", name=op.f("pk_inbox")),
    )


def downgrade() -> None:
    op.drop_table("inbox")
    op.drop_index(op.f("ix_challenges_status_created_at"), table_name="challenges")
    op.drop_index(op.f("ix_challenges_challenger_created_at"), table_name="challenges")
    op.drop_index(op.f("ix_challenges_opponent_status"), table_name="challenges")
    op.drop_table("challenges")
    op.drop_table("rated_matches")
    op.drop_index(op.f("ix_ratings_format_established_rating_handle"), table_name="ratings")
    op.drop_table("ratings")
    op.drop_index(op.f("ix_match_players_handle_result"), table_name="match_players")
    op.drop_index(
        op.f("ix_match_players_handle_created_at_match_id"), table_name="match_players"
    )
    op.drop_table("match_players")
    op.drop_index(op.f("ix_player_tokens_handle"), table_name="player_tokens")
    op.drop_table("player_tokens")
    op.drop_table("players")
