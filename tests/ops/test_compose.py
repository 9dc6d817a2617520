"""compose.yaml and the Dockerfile agree with each other and with the server's settings:
what `docker compose up` would run, checked without Docker; the image installs the pinned
versions of constraints.txt. compose.yaml takes every secret from `.env`, which neither git
nor the image build gets, and which .env.example describes: the file is read here as
compose reads it, its variables filled in from that example."""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib.metadata
import json
import re
import shlex
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from sqlalchemy.engine import make_url

from scopa.infra.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


# compose's interpolation: `$$` is a dollar sign; `${NAME}`, `${NAME:?message}` (and the
# other operators) or `$NAME` a variable of the environment or of `.env`.
REFERENCE = re.compile(
    r"\$(?:\$|\{(?P<braced>[A-Za-z_]\w*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}|(?P<bare>[A-Za-z_]\w*))"
)
# Settings kept out of their repr are the secrets; beside them, the database's password.
SECRET_SETTINGS = {f"SCOPA_{f.name.upper()}" for f in dataclasses.fields(Settings) if not f.repr}
SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|_KEY$")


class Refused(Exception):
    """compose would not start: a required variable is missing or empty."""


def references(node: object) -> list[re.Match[str]]:
    """Every variable reference in a parsed compose file's values, in order."""
    if isinstance(node, dict):
        return [m for key, value in node.items() for m in references(key) + references(value)]
    if isinstance(node, list):
        return [m for value in node for m in references(value)]
    if isinstance(node, str):
        return [m for m in REFERENCE.finditer(node) if m[0] != "$$"]
    return []


def interpolate(node: Any, env: dict[str, str]) -> Any:
    """``node`` with its variables filled in from ``env`` as compose fills them."""
    if isinstance(node, dict):
        return {interpolate(k, env): interpolate(v, env) for k, v in node.items()}
    if isinstance(node, list):
        return [interpolate(value, env) for value in node]
    if not isinstance(node, str):
        return node

    def fill(match: re.Match[str]) -> str:
        if match[0] == "$$":
            return "$"
        name = match["braced"] or match["bare"]
        op, arg = match["op"] or "", match["arg"] or ""
        value = env.get(name)
        unset = value is None or (op.startswith(":") and value == "")
        if op.endswith("?") and unset:
            raise Refused(f"{name}: {arg}")
        if op.endswith("-") and unset:
            return arg
        if op.endswith("+"):
            return "" if unset else arg
        return value or ""

    return REFERENCE.sub(fill, node)


def env_file(path: Path) -> dict[str, str]:
    """A compose env file: KEY=value lines, comments and blank lines between them."""
    pairs = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, equals, value = line.partition("=")
            assert equals, f"not KEY=value: {line!r}"
            assert re.fullmatch(r"[A-Za-z_]\w*", name), f"not a variable name: {line!r}"
            assert name not in pairs, f"{name} twice"
            pairs[name] = value
    return pairs


@pytest.fixture(scope="module")
def example() -> dict[str, str]:
    return env_file(ROOT / ".env.example")


@pytest.fixture(scope="module")
def raw_compose() -> dict[str, Any]:
    """compose.yaml as written, its variables not filled in."""
    return dict(yaml.safe_load((ROOT / "compose.yaml").read_text()))


@pytest.fixture(scope="module")
def compose(raw_compose: dict[str, Any], example: dict[str, str]) -> dict[str, Any]:
    """What compose runs with .env.example copied to .env."""
    return dict(interpolate(raw_compose, example))


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return dict(compose["services"])


@pytest.fixture(scope="module")
def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions in order, with their arguments (continuations joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, rest = line.strip().partition(" ")
            found.append((name.upper(), rest.strip()))
    return found


@pytest.fixture(scope="module")
def dockerfile(instructions: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Instruction -> its arguments, one entry per occurrence."""
    by_name: dict[str, list[str]] = {}
    for name, rest in instructions:
        by_name.setdefault(name, []).append(rest)
    return by_name


@pytest.fixture(scope="module")
def image_env(dockerfile: dict[str, list[str]]) -> dict[str, str]:
    """What the image's ENV instructions set (the KEY=value form)."""
    return dict(part.split("=", 1) for args in dockerfile["ENV"] for part in shlex.split(args))


def shell_commands(dockerfile: dict[str, list[str]]) -> list[list[str]]:
    """Every command the RUN instructions chain with &&, split into words."""
    return [
        shlex.split(command)
        for args in dockerfile["RUN"]
        for command in args.split("&&")
        if command.strip()
    ]


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


def by_command(services: dict[str, Any], command: str) -> dict[str, Any]:
    """The services that run ``scopa <command>``."""
    return {
        name: service
        for name, service in services.items()
        if command_of(service)[:2] == ["scopa", command]
    }


def command_of(service: dict[str, Any]) -> list[str]:
    return command(service["command"]) if "command" in service else []


@pytest.fixture(scope="module")
def replicas(services: dict[str, Any]) -> dict[str, Any]:
    return by_command(services, "serve")


def test_the_services(services: dict[str, Any], replicas: dict[str, Any]) -> None:
    assert {"postgres", "migrate", "proxy"} <= set(services)
    assert len(replicas) == 2
    assert len(by_command(services, "worker")) == 2


def health_argv(test: str | list[str]) -> list[str]:
    """A compose health check's command as words, whichever form it is written in."""
    if isinstance(test, str):
        return shlex.split(test)
    if test[0] == "CMD-SHELL":
        return shlex.split(test[1])
    assert test[0] == "CMD", test
    return [str(word) for word in test[1:]]


def test_postgres_reports_healthy_with_pg_isready(services: dict[str, Any]) -> None:
    postgres = services["postgres"]
    assert str(postgres["image"]).startswith("postgres:")
    argv = health_argv(postgres["healthcheck"]["test"])
    assert argv[0] == "pg_isready"
    env = environment(postgres)
    # Checking the database the server will use, as its user, not just the socket.
    assert flag(argv, "-U") == env["POSTGRES_USER"]
    assert flag(argv, "-d") == env["POSTGRES_DB"]


def test_postgres_health_check_connects_over_tcp_as_the_app(services: dict[str, Any]) -> None:
    # While the postgres image creates its database on first start, the server listens on
    # the Unix socket alone: a check over the socket says healthy before the app can connect.
    argv = health_argv(services["postgres"]["healthcheck"]["test"])
    assert flag(argv, "-h") in ("127.0.0.1", "localhost", "::1")
    app_urls = {environment(s)["SCOPA_DATABASE_URL"] for s in services.values() if "build" in s}
    (app_url,) = app_urls
    app_port = make_url(app_url).port or 5432
    assert int(flag(argv, "-p")) == app_port


def test_every_service_has_a_restart_policy(services: dict[str, Any]) -> None:
    for name, service in services.items():
        assert "restart" in service, f"{name} has no restart policy"
        if name == "migrate":
            # A one-shot the api waits on: a failed migration stays failed, with its reason.
            assert service["restart"] == "no"
        else:
            assert service["restart"] in ("always", "unless-stopped"), name


def test_migrate_runs_once_postgres_is_healthy(services: dict[str, Any]) -> None:
    migrate = services["migrate"]
    assert command(migrate["command"]) == ["scopa", "migrate"]
    assert condition(migrate, "postgres") == "service_healthy"
    # The image's health check asks the API, which the one-shot never serves.
    assert migrate["healthcheck"] == {"disable": True}


def test_replicas_and_workers_start_after_the_migration(
    services: dict[str, Any], replicas: dict[str, Any]
) -> None:
    for name, replica in replicas.items():
        # Inside a container, loopback would be reachable from nowhere.
        assert flag(command_of(replica), "--host") == "0.0.0.0", name
    for name, service in {**replicas, **by_command(services, "worker")}.items():
        assert condition(service, "migrate") == "service_completed_successfully", name


def test_every_process_of_the_app_reaches_postgres_with_its_credentials(
    services: dict[str, Any],
) -> None:
    postgres = environment(services["postgres"])
    app = [name for name, service in services.items() if "build" in service]
    assert len(app) == 5  # migrate, 2 replicas, 2 workers
    urls = {environment(services[name])["SCOPA_DATABASE_URL"] for name in app}
    assert len(urls) == 1, urls
    url = make_url(urls.pop())
    assert url.drivername == "postgresql+asyncpg"
    assert url.host == "postgres"
    assert url.port in (None, 5432)
    assert (url.username, url.password, url.database) == (
        postgres["POSTGRES_USER"],
        postgres["POSTGRES_PASSWORD"],
        postgres["POSTGRES_DB"],
    )


def test_one_port_everywhere(
    services: dict[str, Any], replicas: dict[str, Any], dockerfile: dict[str, list[str]]
) -> None:
    (port,) = {int(flag(command_of(replica), "--port")) for replica in replicas.values()}
    for name, replica in replicas.items():
        # Reached through the proxy alone (tests/ops/test_proxy.py checks its upstreams).
        assert "ports" not in replica, name
        # A replica's health is the image's own check: compose does not override it.
        assert "healthcheck" not in replica, name
    assert [name for name, service in services.items() if "ports" in service] == ["proxy"]
    health = " ".join(image_health_check(dockerfile))
    assert re.search(rf"//(127\.0\.0\.1|localhost):{port}/ready\b", health), health

    assert [int(p.split("/")[0]) for p in dockerfile["EXPOSE"][0].split()] == [port]
    cmd = json.loads(dockerfile["CMD"][-1])
    assert cmd[:2] == ["scopa", "serve"]
    assert (flag(cmd, "--host"), int(flag(cmd, "--port"))) == ("0.0.0.0", port)


def test_every_service_has_a_health_check(
    services: dict[str, Any], replicas: dict[str, Any]
) -> None:
    for name, service in services.items():
        if name == "migrate":
            continue  # a one-shot (above): done is its health
        if name in replicas:
            continue  # the image's HEALTHCHECK (above)
        argv = health_argv(service["healthcheck"]["test"])
        assert argv, name
        assert "disable" not in service["healthcheck"], name


def image_health_check(dockerfile: dict[str, list[str]]) -> list[str]:
    """The HEALTHCHECK's command, in its exec form."""
    (args,) = dockerfile["HEALTHCHECK"]
    options, cmd, exec_form = args.partition(" CMD ")
    assert cmd, args
    assert all(option.startswith("--") for option in options.split()), options
    return [str(word) for word in json.loads(exec_form)]


def test_the_health_check_runs_with_what_the_image_has(dockerfile: dict[str, list[str]]) -> None:
    # python:*-slim has no curl or wget; Python itself is the one client sure to be there.
    assert dockerfile["FROM"][0].startswith("python:")
    assert image_health_check(dockerfile)[0] in ("python", "python3")


def test_the_image_runs_as_a_user_who_owns_the_data_folder(
    dockerfile: dict[str, list[str]], image_env: dict[str, str]
) -> None:
    (user,) = dockerfile["USER"]
    assert user.split(":")[0] not in ("root", "0")
    (useradd,) = [argv for argv in shell_commands(dockerfile) if argv[0] == "useradd"]
    assert useradd[-1] == user
    assert "--create-home" in useradd  # the home folder made, and owned by the user
    home = PurePosixPath(flag(useradd, "--home-dir"))
    # The embedded SQLite default lives there, so the image starts with no database given.
    url = make_url(image_env["SCOPA_DATABASE_URL"])
    assert url.get_backend_name() == "sqlite"
    assert PurePosixPath(url.database or "").parent == home
    assert str(home) in dockerfile["VOLUME"][0].split()
    assert Settings.from_env(image_env).database_url == image_env["SCOPA_DATABASE_URL"]


def test_the_image_installs_the_pinned_versions(instructions: list[tuple[str, str]]) -> None:
    order = [(name, args) for name, args in instructions if name in ("COPY", "RUN")]
    (install,) = [
        i for i, (name, args) in enumerate(order) if name == "RUN" and "pip install" in args
    ]
    argv = shlex.split(order[install][1].split("&&")[0])
    constraints = flag(argv, "-c") if "-c" in argv else flag(argv, "--constraint")
    assert constraints == "constraints.txt"
    copied = [args.split()[:-1] for name, args in order[:install] if name == "COPY"]
    assert any(constraints in sources for sources in copied), "copied before the install"


def pins() -> dict[str, str]:
    pinned: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pin = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!_-]+)", line)
            assert pin, f"not an exact pin: {line!r}"
            pinned[canonicalize_name(pin[1])] = pin[2]
    return pinned


def test_every_dependency_is_pinned_and_fits_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = pins()
    assert canonicalize_name(project["name"]) not in pinned
    for text in project["dependencies"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in constraints.txt"
        assert requirement.specifier.contains(pinned[name]), f"{name}=={pinned[name]}: {text}"


def test_what_the_dependencies_need_is_pinned_too() -> None:
    """Down the requirements the installed distributions declare, extras included: an
    unpinned library would let a rebuild take another version of it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = pins()
    todo = [Requirement(text) for text in project["dependencies"]]
    seen: set[tuple[str, str]] = set()
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        for extra in requirement.extras or {""}:
            if (name, extra) in seen:
                continue
            seen.add((name, extra))
            assert name in pinned, f"{name}, needed by the dependencies, is not pinned"
            for text in importlib.metadata.requires(name) or []:
                needed = Requirement(text)
                if needed.marker is None or needed.marker.evaluate({"extra": extra}):
                    todo.append(needed)


def test_the_image_holds_every_package_it_installs(dockerfile: dict[str, list[str]]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]}
    copied = {args.split()[0].rstrip("/") for args in dockerfile["COPY"]}
    assert packages <= copied
    # The files the build reads besides the packages: without them it fails.
    named = {"pyproject.toml", project["project"]["readme"], *project["project"]["license-files"]}
    assert named <= {part for args in dockerfile["COPY"] for part in args.split()[:-1]}


def _another(field: str, value: object) -> str:
    """A valid setting different from ``value``, to see the variable move its field."""
    if isinstance(value, bool):
        return "off" if value else "on"
    if isinstance(value, int | float):
        return str(int(value) + 1)
    if isinstance(value, tuple):
        # A list of networks, or of origins.
        return "192.0.2.0/24" if field == "trusted_proxies" else "https://another.example"
    return f"{value}-other"


def test_every_variable_set_is_one_the_settings_read(services: dict[str, Any]) -> None:
    fields = {f"SCOPA_{f.name.upper()}": f.name for f in dataclasses.fields(Settings)}
    for name, service in services.items():
        env = environment(service)
        scopa = {k: v for k, v in env.items() if k.startswith("SCOPA_")}
        if "build" in service:
            assert scopa, name
        loaded = Settings.from_env(env)
        for variable, text in scopa.items():
            assert variable in fields, f"{name}: {variable} is not a setting"
            field = fields[variable]
            value = getattr(loaded, field)
            expected: object = text
            if isinstance(value, bool):
                expected = text == "on"
            elif isinstance(value, tuple):
                expected = tuple(o.strip() for o in text.split(",") if o.strip())
            elif isinstance(value, int | float):
                expected = type(value)(text)
            elif field == "log_level":
                expected = text.upper()
            assert value == expected, f"{name}: {variable}={text!r} gave {value!r}"
            # And the variable is what set it, not a default that happens to match.
            moved = Settings.from_env({**env, variable: _another(field, value)})
            assert getattr(moved, field) != value, f"{name}: {variable} is not read"


def test_compose_reads_every_variable_from_the_env_file_or_refuses_to_start(
    raw_compose: dict[str, Any], example: dict[str, str]
) -> None:
    found = references(raw_compose)
    assert found
    for match in found:
        # Required: no default to fall back on, and an empty value refused as well.
        assert match["op"] == ":?", match[0]
        assert ".env" in match["arg"], f"the message names the file to fill in: {match[0]}"
    for name in example:
        for env in ({k: v for k, v in example.items() if k != name}, {**example, name: ""}):
            with pytest.raises(Refused, match=name):
                interpolate(raw_compose, env)


def test_every_secret_comes_from_the_env_file(
    raw_compose: dict[str, Any], compose: dict[str, Any], example: dict[str, str]
) -> None:
    secrets_set = 0
    for name, service in raw_compose["services"].items():
        for variable, value in environment(service).items():
            if variable in SECRET_SETTINGS or SECRET_NAME.search(variable):
                assert REFERENCE.fullmatch(value), f"{name}: {variable} is written in compose.yaml"
                secrets_set += 1
            if variable == "SCOPA_DATABASE_URL":
                password = re.fullmatch(r"[^:]+://[^:@/]+:(.+)@[^@]+", value)
                assert password, f"{name}: the database URL has no password"
                assert REFERENCE.fullmatch(password[1]), f"{name}: the database password"
    assert secrets_set
    # Nor is any secret's value written anywhere else in the file.
    text = (ROOT / "compose.yaml").read_text()
    for variable, value in example.items():
        assert value not in text, variable
    # Every API replica keeps /metrics to the token's bearer.
    for name, replica in by_command(compose["services"], "serve").items():
        assert Settings.from_env(environment(replica)).metrics_token, name


def test_the_example_env_file_defines_every_variable_compose_reads(
    raw_compose: dict[str, Any], example: dict[str, str]
) -> None:
    read = {m["braced"] or m["bare"] for m in references(raw_compose)}
    assert set(example) == read
    lines = (ROOT / ".env.example").read_text().splitlines()
    for name, value in example.items():
        assert value, f"{name} has no placeholder"
        # A placeholder, never a working secret, with a comment that says what it is.
        assert "replace" in value, f"{name}={value!r}"
        above = lines[lines.index(f"{name}={value}") - 1]
        assert above.startswith("#"), f"{name} has no comment"
    # The password goes into the database URL unescaped.
    assert re.fullmatch(r"[A-Za-z0-9_-]+", example["POSTGRES_PASSWORD"])


def ignores(ignore_file: Path, path: str) -> bool:
    """Whether one of ``ignore_file``'s patterns (no negations there) matches ``path``."""
    patterns = [
        line.strip().lstrip("/")
        for line in ignore_file.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert not any(p.startswith("!") for p in patterns)
    return any(fnmatch.fnmatch(path, p) for p in patterns)


def test_the_env_file_stays_out_of_git_and_of_the_image() -> None:
    for ignore_file in (ROOT / ".gitignore", ROOT / ".dockerignore"):
        assert ignores(ignore_file, ".env"), ignore_file.name
    assert not ignores(ROOT / ".gitignore", ".env.example")
