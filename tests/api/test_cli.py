"""The ``scopa`` command: openapi, migrate, tournament, and serve as a real process."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from infra.cli import main, render_openapi
from infra.settings import Settings, SettingsError
from tests.support.server_process import start_server


def test_openapi_writes_and_checks(tmp_path: Path) -> None:
    target = tmp_path / "openapi.json"
    assert main(["openapi", "--check", "--output", str(target)]) == 1
    assert main(["openapi", "--output", str(target)]) == 0
    assert target.read_text() == render_openapi()
    assert main(["openapi", "--check", "--output", str(target)]) == 0


def test_migrate_creates_the_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "new.db"
    monkeypatch.setenv("SCOPA_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    assert main(["migrate"]) == 0
    assert path.stat().st_size > 0


def test_tournament_is_delegated(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["tournament", "--a", "easy", "--b", "medium", "--matches", "2", "--json", "--target", "1"]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)


def test_bad_settings_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOPA_PORT", "eighty")
    assert main(["migrate"]) == 2


def test_settings_from_the_environment() -> None:
    assert Settings.from_env({}) == Settings()
    settings = Settings.from_env(
        {
            "SCOPA_DATABASE_URL": "postgresql+asyncpg://u@h/db",
            "SCOPA_RATE_LIMIT": "0",
            "SCOPA_CORS_ORIGINS": "https://a.example, https://b.example,",
            "SCOPA_HOST": "0.0.0.0",
            "SCOPA_PORT": "9000",
            "SCOPA_AI_BUDGET_MS": "250",
            "SCOPA_AI_WORKERS": "0",
            "SCOPA_LOG_LEVEL": "debug",
        }
    )
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert (settings.rate_limit, settings.port, settings.ai_workers) == (0, 9000, 0)
    assert (settings.host, settings.ai_budget_ms, settings.log_level) == ("0.0.0.0", 250, "DEBUG")
    with pytest.raises(SettingsError):
        Settings.from_env({"SCOPA_RATE_LIMIT": "-1"})


@pytest.mark.slow
def test_serve_migrates_and_serves_with_json_logs(tmp_path: Path) -> None:
    server = start_server(f"sqlite+aiosqlite:///{tmp_path / 'served.db'}", tmp_path)
    try:
        base = server.base_url
        body = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "expert"}], "seed": 4}
        created = httpx.post(f"{base}/v1/matches", json=body, timeout=5).json()
        token = created["tokens"][0]["token"]
        match_id = created["match"]["id"]
        page = httpx.get(
            f"{base}/v1/matches/{match_id}/events",
            params={"token": token, "after": 1, "wait": 10},
            timeout=15,
        ).json()
        view = httpx.get(
            f"{base}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}
        ).json()
        # Whoever dealt, it is the human's turn within moments: the AI has moved if first.
        assert view["turn"] == 0 or page["events"]
    finally:
        server.assert_stops_cleanly()
    stderr = server.log_text()
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert any(line["logger"] == "scopa.access" and line["request_id"] for line in lines)
    assert token not in stderr
