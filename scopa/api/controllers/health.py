"""Liveness and readiness, for load balancers and orchestrators."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Controller, get
from msgspec import Meta

from scopa.api.controllers.params import Service
from scopa.api.openapi import problems


class Status(msgspec.Struct, frozen=True):
    status: Annotated[Literal["ok"], Meta(description="`ok`: the process answers")]


class Readiness(msgspec.Struct, frozen=True):
    status: Annotated[Literal["ready"], Meta(description="`ready`: the database answers")]
    ai: Annotated[
        Literal["ready", "missing"],
        Meta(
            description="`ready`: some process of the deployment can play AI turns now; "
            "`missing`: none can (no worker runs, or its AI pool is being replaced), so "
            "AI turns wait"
        ),
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
        "balancer may send traffic. `ai` tells whether AI turns can be played anywhere "
        "in the deployment; missing AI capacity does not make this process unready.",
        responses=problems(503),
    )
    async def ready(self, service: Service) -> Readiness:
        return Readiness("ready", "ready" if await service.ai_work.ready() else "missing")
