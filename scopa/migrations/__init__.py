"""Alembic migrations; run them with ``infra.migrate.migrate`` (``scopa migrate``)."""
