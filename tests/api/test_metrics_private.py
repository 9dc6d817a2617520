"""/metrics, open by default, private behind a bearer token when SCOPA_METRICS_TOKEN is
set; the rest of the API is the same either way."""

from __future__ import annotations

import pytest

from scopa.infra.settings import Settings
from tests.api.support import Client

TOKEN = "m3trics-4f9c1e"


@pytest.fixture(params=["", TOKEN], ids=["open", "private"])
def settings(request: pytest.FixtureRequest) -> Settings:
    return Settings(stream_seconds=3.0, metrics_token=request.param).without_limits()


async def test_the_bearer_of_the_token_reads_the_metrics(client: Client) -> None:
    await client.get("/health")
    answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    assert "text/plain" in answer.headers["content-type"]
    assert "scopa_requests_total" in answer.text


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer",
        "Bearer wrong",
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN[:-1]}",
        f"Basic {TOKEN}",
        TOKEN,
    ],
)
async def test_without_the_token_only_open_metrics_answer(
    client: Client, settings: Settings, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    answer = await client.get("/metrics", headers=headers)
    if not settings.metrics_token:
        assert answer.status_code == 200
        return
    assert answer.status_code == 401
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["www-authenticate"] == 'Bearer realm="metrics"'
    problem = answer.json()
    assert problem["type"].endswith("/metrics-token")
    assert problem["status"] == 401
    assert TOKEN not in answer.text
    assert "scopa_requests_total" not in answer.text


async def test_the_scheme_is_case_insensitive(client: Client) -> None:
    answer = await client.get("/metrics", headers={"Authorization": f"bearer  {TOKEN} "})
    assert answer.status_code == 200


async def test_the_api_needs_no_metrics_token(client: Client) -> None:
    assert (await client.get("/health")).status_code == 200
    created = await client.post("/v1/matches", json={"seats": [{"kind": "human"}] * 2})
    assert created.status_code == 201
