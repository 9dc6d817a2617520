"""The adapters against real databases: SQLite, and Postgres when it can be had."""

from tests.support.databases import *  # noqa: F403
