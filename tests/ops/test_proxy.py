"""deploy/nginx.conf, the proxy compose.yaml puts in front of the API replicas, agrees
with compose.yaml and with the app: it reaches every replica on its port, drops slow
clients, caps connections per client address, passes that address on to a server that
believes it from the proxy alone, streams events unbuffered, logs no query string, and
never serves /metrics (tests/ops/test_metrics_through_proxy.py tries it for real).
Checked without Docker; with nginx installed, ``nginx -t`` checks the syntax as well."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from scopa.api.app import MAX_BODY_BYTES
from scopa.cli import KEEP_ALIVE_SECONDS
from scopa.infra.db import CONNECTIONS
from scopa.infra.settings import Settings
from scopa.service.feed import HEARTBEAT_SECONDS, MAX_WAIT
from tests.support.nginx import CONF, local_conf

ROOT = Path(__file__).resolve().parents[2]
STREAM_PATH = "/v1/matches/{match_id}/events/stream"


@dataclass
class Directive:
    name: str
    args: list[str]
    children: list[Directive] = field(default_factory=list)

    def all(self, name: str) -> list[Directive]:
        return [child for child in self.children if child.name == name]

    def one(self, name: str) -> Directive:
        (found,) = self.all(name)
        return found

    def value(self, name: str) -> str:
        (arg,) = self.one(name).args
        return arg


def parse(text: str) -> Directive:
    """nginx's configuration as a tree: directives, their words, their blocks."""
    tokens = re.findall(r"'[^']*'|\"[^\"]*\"|[{};]|[^\s{};]+", re.sub(r"#[^\n]*", "", text))
    root = Directive("", [])
    stack: list[Directive] = [root]
    words: list[str] = []
    for token in tokens:
        if token in (";", "{"):
            directive = Directive(words[0], [w.strip("'\"") for w in words[1:]])
            stack[-1].children.append(directive)
            if token == "{":
                stack.append(directive)
            words = []
        elif token == "}":
            assert not words, words
            stack.pop()
        else:
            words.append(token)
    assert len(stack) == 1, "unbalanced braces"
    assert not words, f"no ; after {words}"
    return root


def seconds(text: str) -> float:
    found = re.fullmatch(r"(\d+)(ms|s|m)?", text)
    assert found is not None, text
    number, unit = found.groups()
    return int(number) * {"ms": 0.001, "s": 1, "m": 60, None: 1}[unit]


@pytest.fixture(scope="module")
def conf() -> Directive:
    return parse(CONF.read_text())


@pytest.fixture(scope="module")
def http(conf: Directive) -> Directive:
    return conf.one("http")


@pytest.fixture(scope="module")
def server(http: Directive) -> Directive:
    return http.one("server")


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "compose.yaml").read_text())["services"])


def role(services: dict[str, Any], command: str) -> dict[str, Any]:
    return {
        name: s for name, s in services.items() if s.get("command", [])[:2] == ["scopa", command]
    }


def metrics_location(server: Directive) -> Directive:
    (found,) = [loc for loc in server.all("location") if "/metrics" in loc.args]
    return found


def stream_location(server: Directive) -> Directive:
    (found,) = [loc for loc in server.all("location") if loc.args[0] == "~"]
    return found


def test_the_upstreams_are_the_api_replicas_on_their_ports(
    http: Directive, services: dict[str, Any]
) -> None:
    replicas = role(services, "serve")
    assert len(replicas) >= 2
    expected = {
        f"{name}:{s['command'][s['command'].index('--port') + 1]}" for name, s in replicas.items()
    }
    upstream = http.one("upstream")
    assert {d.args[0] for d in upstream.all("server")} == expected
    name = upstream.args[0]
    server = http.one("server")
    for location in server.all("location"):
        if location is not metrics_location(server):
            assert location.value("proxy_pass") == f"http://{name}"


def test_the_proxy_is_what_compose_publishes(server: Directive, services: dict[str, Any]) -> None:
    proxy = services["proxy"]
    assert str(proxy["image"]).startswith("nginx:")
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in proxy["volumes"]
    (mapping,) = proxy["ports"]
    assert str(mapping).rsplit(":", 1)[1] == server.value("listen")
    # It starts once the replicas answer, and its own check goes through it to one.
    assert {
        d for d, c in proxy["depends_on"].items() if c["condition"] == "service_healthy"
    } == set(role(services, "serve"))
    assert f"http://127.0.0.1:{server.value('listen')}/health" in proxy["healthcheck"]["test"]


def test_slow_and_idle_clients_are_dropped(http: Directive) -> None:
    assert seconds(http.value("client_header_timeout")) <= 10
    assert seconds(http.value("client_body_timeout")) <= 30
    assert 0 < seconds(http.value("keepalive_timeout")) <= 15
    assert seconds(http.value("send_timeout")) <= 60
    assert http.value("client_max_body_size") == f"{MAX_BODY_BYTES // 1024}k"


def test_the_proxy_refuses_big_headers_before_the_app_would(http: Directive) -> None:
    count, size = http.one("large_client_header_buffers").args
    assert size.endswith("k")
    # Room for the request line the proxy rewrites and the headers it adds.
    assert int(count) * int(size[:-1]) * 1024 + 4096 <= Settings().max_header_bytes


def test_upstream_connections_are_reused_but_never_one_uvicorn_is_closing(
    http: Directive, server: Directive
) -> None:
    upstream = http.one("upstream")
    assert int(upstream.value("keepalive")) > 0
    assert seconds(upstream.value("keepalive_timeout")) < KEEP_ALIVE_SECONDS
    # Keep-alive to an upstream needs HTTP/1.1 and no "Connection: close" passed on.
    assert server.value("proxy_http_version") == "1.1"
    headers = {d.args[0]: d.args[1] for d in server.all("proxy_set_header")}
    assert headers["Connection"] == ""


def test_connections_are_capped_per_client_address(http: Directive, server: Directive) -> None:
    (zone,) = http.all("limit_conn_zone")
    assert zone.args[0] == "$binary_remote_addr"
    zone_name = zone.args[1].removeprefix("zone=").split(":")[0]
    limit = server.one("limit_conn")
    assert limit.args[0] == zone_name
    assert int(limit.args[1]) > 0
    # Not 503: an EventSource refused with it never comes back.
    assert http.value("limit_conn_status") == "429"


def test_the_client_address_is_passed_on_and_believed_from_the_proxy_alone(
    server: Directive, services: dict[str, Any]
) -> None:
    headers = {d.args[0]: d.args[1] for d in server.all("proxy_set_header")}
    assert headers["X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
    assert headers["X-Real-IP"] == "$remote_addr"
    proxy_address = services["proxy"]["networks"]["backend"]["ipv4_address"]
    for name, replica in role(services, "serve").items():
        env = replica["environment"]
        trusted = [part.strip() for part in env["SCOPA_TRUSTED_PROXIES"].split(",")]
        assert trusted == [proxy_address], name
        # The peer of every connection is the proxy: its per-address cap would be one
        # cap for all clients together. nginx's limit_conn counts them instead.
        assert env["SCOPA_CONNECTIONS_PER_ADDRESS"] == "0", name


def test_the_proxy_address_is_fixed_on_the_network_the_replicas_share(
    services: dict[str, Any],
) -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    (subnet,) = [entry["subnet"] for entry in compose["networks"]["backend"]["ipam"]["config"]]
    address = services["proxy"]["networks"]["backend"]["ipv4_address"]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet)
    for name in role(services, "serve"):
        assert services[name]["networks"] == ["backend"]


def test_long_polls_and_streams_outlast_their_waits(server: Directive) -> None:
    assert seconds(server.value("proxy_read_timeout")) > MAX_WAIT
    stream = stream_location(server)
    assert seconds(stream.value("proxy_read_timeout")) > 2 * HEARTBEAT_SECONDS
    assert stream.value("proxy_buffering") == "off"


def test_the_stream_location_is_the_stream_route_alone(server: Directive) -> None:
    pattern = re.compile(stream_location(server).args[1])
    assert pattern.search(STREAM_PATH.format(match_id="m_5kX2q"))
    for other in ("/v1/matches/m_5kX2q/events", "/v1/matches", "/v1/matches/m/moves"):
        assert not pattern.search(other), other
    assert STREAM_PATH in (ROOT / "openapi" / "openapi.json").read_text()


def test_metrics_are_refused_at_the_proxy_whatever_the_request_carries(
    server: Directive,
) -> None:
    location = metrics_location(server)
    # A prefix that stops the search: no regex location can take /metrics... back.
    assert location.args == ["^~", "/metrics"]
    assert not location.all("proxy_pass")
    status, body = location.one("return").args
    assert status == "404"
    assert location.value("default_type") == "application/problem+json"
    assert '"status":404' in body
    # Nothing there tells a request with the token from one without.
    assert not location.all("if")


def test_the_access_log_holds_no_query_string(http: Directive) -> None:
    formats = {d.args[0]: " ".join(d.args[1:]) for d in http.all("log_format")}
    (access,) = http.all("access_log")
    used = formats[access.args[1]]
    for variable in ("$request ", "$request_uri", "$args", "$query_string", "$arg_"):
        assert variable not in f"{used} ", variable
    assert "$uri" in used
    assert "$upstream_addr" in used


def test_the_error_log_quotes_no_request(conf: Directive) -> None:
    # Below crit, a request that failed upstream is logged with its whole request line.
    (error_log,) = conf.all("error_log")
    assert error_log.args[1] in ("crit", "alert", "emerg")


def test_postgres_takes_every_pool(services: dict[str, Any]) -> None:
    processes = len(role(services, "serve")) + len(role(services, "worker"))
    command = services["postgres"]["command"]
    limit = int(command[command.index("-c") + 1].removeprefix("max_connections="))
    # The pooled connections and a LISTEN connection per process, and the one-shot migration.
    assert limit >= processes * (CONNECTIONS + 1) + 1


def test_every_worker_runs_and_checks_scopa_worker(services: dict[str, Any]) -> None:
    workers = role(services, "worker")
    assert len(workers) >= 2
    for name, worker in workers.items():
        port = worker["command"][worker["command"].index("--metrics-port") + 1]
        assert f"http://127.0.0.1:{port}/metrics" in " ".join(worker["healthcheck"]["test"]), name


def test_every_replica_leaves_the_ai_to_the_workers(services: dict[str, Any]) -> None:
    for name, replica in role(services, "serve").items():
        assert replica["environment"]["SCOPA_AI_IN_PROCESS"] == "off", name


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_nginx_accepts_the_configuration(tmp_path: Path) -> None:
    copy = local_conf(tmp_path, ["127.0.0.1:8001", "127.0.0.1:8002"])
    checked = subprocess.run(
        ["nginx", "-t", "-q", "-p", str(tmp_path), "-c", str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
