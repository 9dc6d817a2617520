"""The reviews asked of the workers (infra.reviews) in the SQL store, on SQLite and
Postgres: asked once however often, claimed oldest first under a lease by one of many
claimers, taken over once a lease lapses, and done when the review is kept."""

from __future__ import annotations

import asyncio

from scopa.domain.ai.review import Review
from scopa.infra.stores import SqlStores
from tests.integration.test_ai_queue import LEASE, Clock, clock, created, store

__all__ = ["clock", "store"]  # the fixtures, shared with the AI turns' queue


def kept(seat: int) -> Review:
    return Review(seat=seat, moves=(), total_loss=0.0)


async def test_asked_again_a_review_is_still_one_to_compute(store: SqlStores) -> None:
    await created(store, "done", "human", "human")
    for _ in range(3):
        await store.reviews.ask_review("done", 1)
    assert await store.reviews.claim_review(LEASE, "a") == ("done", 1)
    assert await store.reviews.claim_review(LEASE, "b") is None


async def test_the_oldest_asked_comes_first(store: SqlStores, clock: Clock) -> None:
    for match_id in ("one", "two"):
        await created(store, match_id, "human", "human")
    await store.reviews.ask_review("two", 0)
    clock.now += 1
    await store.reviews.ask_review("one", 1)
    await store.reviews.ask_review("two", 1)
    taken = [await store.reviews.claim_review(LEASE, "a") for _ in range(4)]
    assert taken == [("two", 0), ("one", 1), ("two", 1), None]


async def test_a_lease_lapsed_leaves_the_review_to_another(store: SqlStores, clock: Clock) -> None:
    """A worker killed mid-review renews nothing: once its lease lapses, another takes
    the review; while it renews, nobody else does."""
    await created(store, "done", "human", "human")
    await store.reviews.ask_review("done", 0)
    assert not await store.reviews.review_held("done", 0)
    assert await store.reviews.claim_review(LEASE, "a") == ("done", 0)
    assert await store.reviews.review_held("done", 0)

    clock.now += LEASE - 1
    await store.reviews.renew_review(("done", 0), LEASE, "b")  # not b's: nothing changes
    await store.reviews.renew_review(("done", 0), LEASE, "a")
    clock.now += 1.5  # past the first lease, within the renewed one
    assert await store.reviews.claim_review(LEASE, "b") is None
    clock.now += LEASE  # a stopped renewing: it died
    assert not await store.reviews.review_held("done", 0)
    assert await store.reviews.claim_review(LEASE, "b") == ("done", 0)
    assert await store.reviews.review_held("done", 0)


async def test_keeping_the_review_ends_the_asking(store: SqlStores) -> None:
    await created(store, "done", "human", "human")
    await store.reviews.ask_review("done", 0)
    await store.reviews.ask_review("done", 1)
    assert await store.reviews.claim_review(LEASE, "a") == ("done", 0)
    await store.reviews.keep_review("done", kept(0))
    assert not await store.reviews.review_held("done", 0)
    assert await store.reviews.claim_review(LEASE, "a") == ("done", 1)
    await store.reviews.keep_review("done", kept(1))
    await store.reviews.keep_review("done", kept(1))  # a second computation keeps nothing more
    assert await store.reviews.review("done", 1) == kept(1)
    # Asked for as it was kept: the worker finds it kept and keeps it again, which ends it.
    await store.reviews.ask_review("done", 0)
    assert await store.reviews.claim_review(LEASE, "a") == ("done", 0)
    await store.reviews.keep_review("done", kept(0))
    assert await store.reviews.claim_review(LEASE, "a") is None


async def test_reviews_wait_behind_other_ai_work(store: SqlStores) -> None:
    await created(store, "done", "human", "human")
    await store.reviews.ask_review("done", 0)
    assert await store.reviews.claim_review(LEASE, "a", True) is None
    assert await store.reviews.claim_review(LEASE, "a") == ("done", 0)


async def test_racing_claimers_take_each_review_once(store: SqlStores) -> None:
    for i in range(6):
        await created(store, f"done-{i}", "human", "human")
        for seat in (0, 1):
            await store.reviews.ask_review(f"done-{i}", seat)

    won = await asyncio.gather(*(store.reviews.claim_review(LEASE, f"w{n}") for n in range(20)))

    taken = [w for w in won if w is not None]
    assert sorted(taken) == sorted((f"done-{i}", seat) for i in range(6) for seat in (0, 1))
