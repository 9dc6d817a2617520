"""Liveness and readiness, for load balancers and orchestrators."""

from __future__ import annotations

import msgspec
from litestar import Controller, get

from api.controllers.params import Service
from api.openapi import problems


class Status(msgspec.Struct, frozen=True):
    status: str


class HealthController(Controller):
    path = "/"
    tags = ["operations"]

    @get("/health", operation_id="health", summary="The process answers")
    async def health(self) -> Status:
        return Status("ok")

    @get(
        "/ready",
        operation_id="ready",
        summary="The database answers",
        responses=problems(503),
    )
    async def ready(self, service: Service) -> Status:
        await service.ready()
        return Status("ready")
