"""Keyed answers at rest: the store is told neither the key nor the answer, and the key
with an equal body still gets the first answer back exactly."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.exceptions import InvalidTag

from scopa.domain.match import Seat
from scopa.service.errors import IdempotencyKeyReused
from scopa.service.idempotency import Claim, caller_scope
from scopa.service.ports import StoredAnswer
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.fakes import FakeStore

KEY = "8b1f0c52-3c2e-4be1-9a52-6f7c0e0d9d11"
SETUP = Setup(seats=(Seat("human"), Seat("open")), seed=5)


def stored_answers(store: FakeStore) -> list[StoredAnswer]:
    return [answer for _, answer, _ in store.keys.claims.values() if answer is not None]


async def test_the_store_holds_neither_the_key_nor_a_token(
    service: Services, store: FakeStore
) -> None:
    created = await service.seating.create(SETUP, KEY, "fp")
    joined = await service.seating.join(created.match.id, 1, KEY, "fp")
    secrets = [KEY, *(t.token for t in created.tokens), joined.token]

    held = [repr(entry) for entry in store.keys.claims.items()]
    assert len(held) == 2
    assert [s for s in secrets if any(s in entry for entry in held)] == []
    assert all(s.encode() not in answer.body for s in secrets for answer in stored_answers(store))


async def test_the_key_and_an_equal_body_get_the_first_answer(
    service: Services, store: FakeStore
) -> None:
    created = await service.seating.create(SETUP, KEY, "fp")

    assert await service.seating.create(SETUP, KEY, "fp") == created
    assert len(store.records) == 1
    (answer,) = stored_answers(store)
    opened = Claim(caller_scope("create"), KEY, "fp").open(answer.body)
    assert opened == msgspec.json.encode(created)


async def test_another_key_gets_a_match_of_its_own(service: Services, store: FakeStore) -> None:
    created = await service.seating.create(SETUP, KEY, "fp")
    other = await service.seating.create(SETUP, KEY[:-1] + "2", "fp")

    assert other.match.id != created.match.id
    assert {t.token for t in other.tokens}.isdisjoint(t.token for t in created.tokens)
    assert len(store.records) == 2


async def test_the_key_with_another_body_is_refused(service: Services) -> None:
    await service.seating.create(SETUP, KEY, "fp")

    with pytest.raises(IdempotencyKeyReused):
        await service.seating.create(SETUP, KEY, "another fp")


def test_what_the_store_is_told_depends_on_the_key_and_the_scope() -> None:
    first = Claim("create", KEY, "fp").stored
    # Equal requests are found again: the derivation has no randomness.
    assert Claim("create", KEY, "fp").stored == first
    for other in (Claim("join:m:1", KEY, "fp").stored, Claim("create", KEY + "x", "fp").stored):
        assert other.key != first.key
        # The same body's fingerprint is keyed: it tells nothing across keys.
        assert other.fingerprint != first.fingerprint
    assert Claim("create", KEY, "fp2").stored.key == first.key


def test_an_answer_opens_only_under_its_own_key() -> None:
    sealed = Claim("create", KEY, "fp").seal(b'{"tokens": []}')

    assert Claim("create", KEY, "fp").open(sealed) == b'{"tokens": []}'
    for other in (Claim("create", KEY + "x", "fp"), Claim("join:m:1", KEY, "fp")):
        with pytest.raises(InvalidTag):
            other.open(sealed)
    altered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    with pytest.raises(InvalidTag):
        Claim("create", KEY, "fp").open(altered)
