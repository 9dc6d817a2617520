"""Schemathesis against the served document: for generated requests, valid and not, the
server answers no 500, only documented statuses and content types, bodies that fit their
schemas, and refuses what the schema refuses."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks

from api.app import create_app
from domain.service import MatchService
from infra.settings import Settings
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, StoreDown

app = create_app(
    Settings(rate_limit=0, stream_seconds=0.2),
    MatchService(FakeStore(), FakeBus(), ai=FirstMoveAi()),
    unavailable=(StoreDown,),
)
schema = schemathesis.openapi.from_asgi("/schema/openapi.json", app)

# Not positive_data_acceptance: an opaque cursor, a reused Idempotency-Key or an
# impossible setup are schema-valid and rightly refused.
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
    checks.negative_data_rejection,
]


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=40, suppress_health_check=list(HealthCheck), deadline=None)
def test_the_server_keeps_its_document(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)
