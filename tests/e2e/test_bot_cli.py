"""examples/bot.py as its users run it: a command that plays a match to the end, or says
in one line on stderr why it cannot (exit 2 for options that do not go together, 1 for a
server that is down or refuses), never with a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.server_process import ROOT, Server, free_port, start_server

BOT_SECONDS = 120.0
# One server for the module: one worker takes the whole file.
pytestmark = pytest.mark.xdist_group("bot-cli")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("bot")
    running = start_server(f"sqlite+aiosqlite:///{folder / 'bot.db'}", folder)
    try:
        yield running
    finally:
        running.stop()


def bot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(Path("examples") / "bot.py"), *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BOT_SECONDS,
    )


def complaint(result: subprocess.CompletedProcess[str], code: int) -> str:
    """The one line the bot ended with on stderr."""
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    return result.stderr.splitlines()[-1]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--match", "M"], "--match needs one of --seat (join that open seat) or --token"),
        (["--match", "M", "--seat", "1", "--token", "T"], "--match needs one of --seat"),
        (["--seat", "1"], "--seat goes with --match"),
        (["--token", "T"], "a seat token goes with --match; a player token starts with scp_"),
        (["--vs-ai", "hard", "--rated"], "--rated goes with --vs-ai or --challenge"),
        (["--accept-challenges"], "--challenge and --accept-challenges need a player token"),
        (["--register", "robo", "--vs-ai", "hard"], "not allowed with argument"),
        (["--vs-ai", "hard", "--match", "M"], "not allowed with argument"),
    ],
)
def test_options_that_do_not_go_together(args: list[str], says: str) -> None:
    # Nobody listens at the URL: a bot that asked anything would fail otherwise.
    result = bot("--url", f"http://127.0.0.1:{free_port()}", *args)
    line = complaint(result, 2)
    assert line.startswith("bot.py: error: ")
    assert says in line


def test_a_server_that_is_down() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    line = complaint(bot("--url", url, "--vs-ai", "easy"), 1)
    assert line == f"bot: cannot reach the server at {url}: All connection attempts failed"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--match", "A" * 22, "--seat", "1"],
            f"bot: POST /v1/matches/{'A' * 22}/seats/1/join: 404 not-found: ",
        ),
        (["--match", "A" * 22, "--token", "T"], f"bot: GET /v1/matches/{'A' * 22}: 404 not-found"),
        (["--vs-ai", "grandmaster"], "bot: POST /v1/matches: 400 validation-error: "),
    ],
)
def test_what_the_server_refuses(server: Server, args: list[str], says: str) -> None:
    assert complaint(bot("--url", server.base_url, *args), 1).startswith(says)


def test_a_wrong_token_for_a_real_match(server: Server) -> None:
    created = httpx.post(
        f"{server.base_url}/v1/matches", json={"seats": [{"kind": "human"}] * 2}, timeout=10
    ).json()
    match_id = created["match"]["id"]
    line = complaint(bot("--url", server.base_url, f"--match={match_id}", "--token", "nope"), 1)
    assert line.startswith(f"bot: GET /v1/matches/{match_id}: 401 invalid-token: ")


def test_a_url_that_is_not_a_scopa_server(server: Server) -> None:
    line = complaint(bot("--url", f"{server.base_url}/nowhere/", "--vs-ai", "easy"), 1)
    assert line.startswith("bot: POST /nowhere/v1/matches: 404 not-found")


@pytest.mark.slow
def test_vs_ai_plays_a_whole_match_against_that_level(server: Server) -> None:
    result = bot("--url", server.base_url, "--vs-ai", "hard")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    outcome = json.loads(result.stdout)
    assert result.stderr == f"created {outcome['match']}: playing seat 0 against the hard AI\n"
    view = httpx.get(f"{server.base_url}/v1/matches/{outcome['match']}", timeout=10).json()
    assert view["status"] == "finished"
    assert [(seat["kind"], seat.get("level")) for seat in view["seats"]] == [
        ("human", None),
        ("ai", "hard"),
    ]
    assert (outcome["scores"], outcome["winner"]) == (view["scores"], view["winner"])
    assert outcome["winner"] in (0, 1)


@pytest.mark.slow
def test_a_bot_registers_and_plays_its_first_rated_match(server: Server) -> None:
    """The README's walk for bot authors: register, then a rated match as the player."""
    registered = bot("--url", server.base_url, "--register", "robo_e2e", "--name", "Robo")
    assert registered.returncode == 0, registered.stderr
    token = json.loads(registered.stdout)["token"]
    assert token.startswith("scp_")
    result = bot("--url", server.base_url, "--token", token, "--vs-ai", "easy", "--rated")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    view = httpx.get(f"{server.base_url}/v1/matches/{outcome['match']}", timeout=10).json()
    assert view["rated"] is True
    assert (view["seats"][0]["player"], view["seats"][0]["name"]) == ("robo_e2e", "Robo")
    player = httpx.get(f"{server.base_url}/v1/players/robo_e2e", timeout=10).json()
    [rating] = player["ratings"]
    assert (rating["format"], rating["games"]) == ("2p-11", 1)
    won = outcome["winner"] == 0
    assert (rating["rating"] > 1500) == won
    assert player["counts"] == {"played": 1, "won": int(won), "lost": int(not won)}


@pytest.mark.slow
def test_a_bot_takes_the_challenge_of_another_and_both_play_it(server: Server) -> None:
    """One bot plays its incoming challenges; another challenges it: one match, played to
    the end by both, rated."""
    tokens = {}
    for handle in ("taker", "maker"):
        registered = bot("--url", server.base_url, "--register", handle)
        tokens[handle] = json.loads(registered.stdout)["token"]
    taker = subprocess.Popen(
        [sys.executable, str(Path("examples") / "bot.py"), "--url", server.base_url,
         "--token", tokens["taker"], "--accept-challenges", "--games", "1"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        maker = bot("--url", server.base_url, "--token", tokens["maker"], "--challenge", "taker")
        assert maker.returncode == 0, maker.stderr
        took, errors = taker.communicate(timeout=BOT_SECONDS)
    finally:
        taker.kill()
    assert taker.returncode == 0, errors
    assert json.loads(took) == json.loads(maker.stdout)
    view = httpx.get(f"{server.base_url}/v1/matches/{json.loads(took)['match']}", timeout=10)
    assert [s["player"] for s in view.json()["seats"]] == ["maker", "taker"]
    assert view.json()["status"] == "finished"
