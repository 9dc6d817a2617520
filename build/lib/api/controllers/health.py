"""Liveness and readiness, for load balancers and orchestrators."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Controller, get
from msgspec import Meta

from api.controllers.params import Service
from api.openapi import problems


class Status(msgspec.Struct, frozen=True):
    status: Annotated[
        Literal["ok", "ready"],
        Meta(description="`ok`: the process answers; `ready`: its database answers too"),
    ]


class HealthController(Controller):
    path = "/"
    tags = ["operations"]

    @get(
        "/health",
        operation_id="health",
        summary="The process answers",
        description="200 while the process runs; the database is not asked.",
    )
    async def health(self) -> Status:
        return Status("ok")

    @get(
        "/ready",
        operation_id="ready",
        summary="The database answers",
        description="200 when the database answers, 503 when it does not: where a load "
        "balancer may send traffic.",
        responses=problems(503),
    )
    async def ready(self, service: Service) -> Status:
        await service.ready()
        return Status("ready")
