"""compose.yaml and the Dockerfile agree with each other and with the server's settings:
what `docker compose up` would run, checked without Docker."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from infra.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "compose.yaml").read_text()))


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return dict(compose["services"])


@pytest.fixture(scope="module")
def dockerfile() -> dict[str, list[str]]:
    """Instruction -> its arguments, one entry per occurrence (continuations joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    instructions: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, rest = line.strip().partition(" ")
            instructions.setdefault(name.upper(), []).append(rest.strip())
    return instructions


def command(value: str | list[str]) -> list[str]:
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def flag(argv: list[str], name: str) -> str:
    assert name in argv, argv
    return argv[argv.index(name) + 1]


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def condition(service: dict[str, Any], dependency: str) -> str:
    depends = service["depends_on"]
    assert isinstance(depends, dict), "the long form, with a condition"
    return str(depends[dependency]["condition"])


def test_the_three_services(services: dict[str, Any]) -> None:
    assert {"postgres", "migrate", "api"} <= set(services)


def test_postgres_reports_healthy_with_pg_isready(services: dict[str, Any]) -> None:
    postgres = services["postgres"]
    assert str(postgres["image"]).startswith("postgres:")
    test = postgres["healthcheck"]["test"]
    text = test if isinstance(test, str) else " ".join(test)
    assert "pg_isready" in text
    env = environment(postgres)
    # Checking the database the server will use, as its user, not just the socket.
    assert f"-U {env['POSTGRES_USER']}" in text
    assert f"-d {env['POSTGRES_DB']}" in text


def test_migrate_runs_once_postgres_is_healthy(services: dict[str, Any]) -> None:
    migrate = services["migrate"]
    assert command(migrate["command"]) == ["scopa", "migrate"]
    assert condition(migrate, "postgres") == "service_healthy"
    assert migrate.get("restart", "no") == "no"


def test_api_serves_after_the_migration(services: dict[str, Any]) -> None:
    api = services["api"]
    argv = command(api["command"])
    assert argv[:2] == ["scopa", "serve"]
    # Inside a container, loopback would be reachable from nowhere.
    assert flag(argv, "--host") == "0.0.0.0"
    assert condition(api, "migrate") == "service_completed_successfully"


def test_both_reach_the_postgres_service_with_its_credentials(
    services: dict[str, Any],
) -> None:
    postgres = environment(services["postgres"])
    urls = {name: environment(services[name])["SCOPA_DATABASE_URL"] for name in ("migrate", "api")}
    assert urls["migrate"] == urls["api"]
    url = make_url(urls["api"])
    assert url.drivername == "postgresql+asyncpg"
    assert url.host == "postgres"
    assert url.port in (None, 5432)
    assert (url.username, url.password, url.database) == (
        postgres["POSTGRES_USER"],
        postgres["POSTGRES_PASSWORD"],
        postgres["POSTGRES_DB"],
    )


def test_one_port_everywhere(services: dict[str, Any], dockerfile: dict[str, list[str]]) -> None:
    api = services["api"]
    port = int(flag(command(api["command"]), "--port"))

    published = []
    for mapping in api["ports"]:
        if isinstance(mapping, dict):
            published.append(int(mapping["target"]))
        else:
            published.append(int(str(mapping).rsplit(":", 1)[-1].split("/")[0]))
    assert published == [port]

    health = api["healthcheck"]["test"]
    health_text = health if isinstance(health, str) else " ".join(health)
    assert re.search(rf"//(127\.0\.0\.1|localhost):{port}/ready\b", health_text), health_text

    assert [int(p.split("/")[0]) for p in dockerfile["EXPOSE"][0].split()] == [port]
    cmd = json.loads(dockerfile["CMD"][-1])
    assert cmd[:2] == ["scopa", "serve"]
    assert (flag(cmd, "--host"), int(flag(cmd, "--port"))) == ("0.0.0.0", port)


def test_the_health_check_runs_with_what_the_image_has(
    services: dict[str, Any], dockerfile: dict[str, list[str]]
) -> None:
    # python:*-slim has no curl or wget; Python itself is the one client sure to be there.
    assert dockerfile["FROM"][0].startswith("python:")
    test = services["api"]["healthcheck"]["test"]
    assert test[0] == "CMD"
    assert test[1] in ("python", "python3")


def test_the_image_holds_every_package_it_installs(dockerfile: dict[str, list[str]]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]}
    copied = {args.split()[0].rstrip("/") for args in dockerfile["COPY"]}
    assert packages <= copied
    assert {"pyproject.toml", "README.md"} <= {
        part for args in dockerfile["COPY"] for part in args.split()[:-1]
    }


def _another(value: object) -> str:
    """A valid setting different from ``value``, to see the variable move its field."""
    if isinstance(value, bool | int | float):
        return str(int(value) + 1)
    if isinstance(value, tuple):
        return "https://another.example"
    return f"{value}-other"


def test_every_variable_set_is_one_the_settings_read(services: dict[str, Any]) -> None:
    fields = {f"SCOPA_{f.name.upper()}": f.name for f in dataclasses.fields(Settings)}
    for name, service in services.items():
        env = environment(service)
        scopa = {k: v for k, v in env.items() if k.startswith("SCOPA_")}
        if name in ("migrate", "api"):
            assert scopa, name
        loaded = Settings.from_env(env)
        for variable, text in scopa.items():
            assert variable in fields, f"{name}: {variable} is not a setting"
            field = fields[variable]
            value = getattr(loaded, field)
            expected: object = text
            if isinstance(value, tuple):
                expected = tuple(o.strip() for o in text.split(",") if o.strip())
            elif isinstance(value, int | float):
                expected = type(value)(text)
            elif field == "log_level":
                expected = text.upper()
            assert value == expected, f"{name}: {variable}={text!r} gave {value!r}"
            # And the variable is what set it, not a default that happens to match.
            moved = Settings.from_env({**env, variable: _another(value)})
            assert getattr(moved, field) != value, f"{name}: {variable} is not read"
