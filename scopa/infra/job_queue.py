"""One queue of jobs in a table any number of processes share: the AI turns, the hints
and the reviews asked of the processes that run AI are each one.

A job is a row; a process claims the first free one in the queue's order, in one
statement that skips rows another claimer holds (``FOR UPDATE SKIP LOCKED`` on Postgres;
SQLite has a single writer), and leases it to itself for a while, renewing the lease as
long as it works on it. A process that dies lets its lease lapse and another takes the
job. Whatever the job produces is stored at a version or kept once, so two processes
working on one job (a lease that lapsed under a slow one) still leave one outcome.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Double,
    String,
    Table,
    bindparam,
    delete,
    exists,
    select,
    tuple_,
    update,
)

# The claim's "now", bound by name so that the statement is built (and compiled) once.
NOW: BindParameter[float] = bindparam("now", type_=Double())


class JobQueue:
    """The statements of the queue in ``table``, whose jobs are named by the ``key``
    columns and taken in ``order``. The table has ``lease_until`` and ``leased_by``."""

    def __init__(self, table: Table, key: tuple[str, ...], order: tuple[Any, ...]) -> None:
        self.table = table
        self._key = tuple(table.c[name] for name in key)
        self._order = order

    def free(self) -> ColumnElement[bool]:
        """Held by nobody at ``:now``."""
        lease = self.table.c.lease_until
        return lease.is_(None) | (lease <= NOW)

    def claim(self, *only: ColumnElement[bool]) -> Any:
        """Lease the first free job (of those ``only`` selects) to ``:by`` until
        ``:until``; RETURNING its key."""
        chosen = (
            select(*self._key)
            .where(self.free(), *only)
            .order_by(*self._order)
            .limit(1)
            .with_for_update(skip_locked=True)
        )
        return (
            update(self.table)
            .where(self._row().in_(chosen))
            .values(
                lease_until=bindparam("until", type_=Double()),
                leased_by=bindparam("by", type_=String()),
            )
            .returning(*self._key)
        )

    def at(self, job: object) -> ColumnElement[bool]:
        """The row of ``job``: its key's value, or a tuple of them for a key of several."""
        values = job if isinstance(job, tuple) else (job,)
        at: ColumnElement[bool] = self._row() == (
            values[0] if len(values) == 1 else tuple_(*values)
        )
        return at

    def _row(self) -> Any:
        return self._key[0] if len(self._key) == 1 else tuple_(*self._key)

    def renew(self, job: object, until: float, by: str, *only: ColumnElement[bool]) -> Any:
        """Extend ``by``'s lease on the job to ``until``, if it still holds it."""
        return (
            update(self.table)
            .where(self.at(job), self.table.c.leased_by == by, *only)
            .values(lease_until=until)
        )

    def held(self, job: object, now: float) -> Any:
        """Whether a live process holds the job: it is working on it."""
        return select(exists().where(self.at(job), self.table.c.lease_until > now))

    def drop(self, job: object) -> Any:
        return delete(self.table).where(self.at(job))
