"""A small Scopa bot that plays over HTTP, for bot authors to start from.

    python examples/bot.py --url http://127.0.0.1:8000     # create, leave seat 1 open, play
    python examples/bot.py --url ... --vs-ai hard          # create against an AI level, play
    python examples/bot.py --url ... --match ID --seat 1   # join an open seat and play
    python examples/bot.py --url ... --match ID --token T  # play a seat you hold
    python examples/bot.py ... --name Bot                  # the seat's name, shown to all
    python examples/bot.py --url ... --register robo       # register a bot player: its token
    python examples/bot.py --url ... --token scp_... --vs-ai hard --rated
                                                           # a rated match as that player
    python examples/bot.py --url ... --token scp_... --challenge bea [--rated]
                                                           # challenge a player, play it
    python examples/bot.py --url ... --token scp_... --accept-challenges [--games N]
                                                           # play its challenges as they come

A player token (``scp_...``, from ``--register``) stands for the player: with ``--vs-ai``
the bot creates the match as that player (``--rated`` for a rated one), with ``--match``
it plays the player's seat there; no seat token is needed. ``--accept-challenges`` follows
the player's challenge stream (resuming with Last-Event-ID when it reconnects), accepts
each challenge made to it and plays it out, printing one JSON line per match, until
``--games`` matches are played (0, the default: for ever).

It waits for its turn with the long-poll events route, from the view's ``last_seq``, then
plays the legal move that takes the most cards (a sweep first), as the server lists them
in ``legal_moves``. At the end it prints the match's id, scores and winner as one JSON
line. When the server cannot be reached, or refuses a request, it says so in one line on
stderr and exits with 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx


class Refused(Exception):
    """The server answered with an error: the request, the status and its problem."""


def connect(url: str) -> httpx.AsyncClient:
    """A client for the server at ``url``.

    It drops idle connections before the server's 5 s keep-alive does, or a request can
    race the server closing the socket under it ("Server disconnected").
    """
    return httpx.AsyncClient(base_url=url, timeout=30, limits=httpx.Limits(keepalive_expiry=2))


def checked(answer: httpx.Response) -> dict[str, Any]:
    """The answer's JSON body; Refused, naming the server's problem, unless it is a 2xx."""
    asked = f"{answer.request.method} {answer.request.url.path}"
    try:
        body = answer.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise Refused(f"{asked}: {answer.status_code}, not a JSON object: is it a Scopa server?")
    if answer.is_success:
        return body
    kind = str(body.get("type", "")).rsplit("/", 1)[-1]
    raise Refused(f"{asked}: {answer.status_code} {kind}: {body.get('detail', '')}")


def pick(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """A sweep if there is one, else the move that takes the most cards."""
    return max(moves, key=lambda m: (m["sweep"], len(m["capture"]), "7D" in m["capture"]))


async def play_seat(client: httpx.AsyncClient, match_id: str, token: str) -> dict[str, Any]:
    """Play one seat until the match is finished; returns the final view."""
    auth = {"Authorization": f"Bearer {token}"}
    while True:
        view = checked(await client.get(f"/v1/matches/{match_id}", headers=auth))
        if view["status"] == "finished":
            return view
        if view["turn"] == view["you"] and view["legal_moves"]:
            move = pick(view["legal_moves"])
            answer = await client.post(
                f"/v1/matches/{match_id}/moves",
                headers={**auth, "If-Match": f'"{view["version"]}"'},
                json={"card": move["card"], "capture": move["capture"]},
            )
            # Somebody moved first, or the seat's time ran out: look again.
            if answer.status_code not in (409, 412):
                checked(answer)
            continue
        # Whatever happens after the view held: the next move, a join, the end.
        events = await client.get(
            f"/v1/matches/{match_id}/events",
            params={"after": view["last_seq"], "wait": 10},
            headers=auth,
        )
        checked(events)


def is_player_token(token: str | None) -> bool:
    return token is not None and token.startswith("scp_")


async def register(client: httpx.AsyncClient, handle: str, name: str | None) -> dict[str, Any]:
    """A new bot player; its token is shown only in this answer."""
    body = {"handle": handle, "kind": "bot", **({} if name is None else {"name": name})}
    registered = checked(await client.post("/v1/players", json=body))
    return {"handle": registered["player"]["handle"], "token": registered["token"]["token"]}


async def take_seat(client: httpx.AsyncClient, args: argparse.Namespace) -> tuple[str, str]:
    """The match and the token of the seat this bot plays, as the options say: a player
    token plays the player's seat itself."""
    player = is_player_token(args.token)
    named = {} if args.name is None or player else {"name": args.name}
    auth = {"Authorization": f"Bearer {args.token}"} if player else {}
    if args.match is not None:
        if args.seat is None:
            return args.match, args.token
        path = f"/v1/matches/{args.match}/seats/{args.seat}/join"
        joined = checked(await client.post(path, json=named, headers=auth))
        return args.match, args.token if player else str(joined["token"])
    rival = {"kind": "open"} if args.vs_ai is None else {"kind": "ai", "level": args.vs_ai}
    body = {"seats": [{"kind": "human", **named}, rival], "rated": args.rated}
    created = checked(await client.post("/v1/matches", json=body, headers=auth))
    match_id = str(created["match"]["id"])
    if args.vs_ai is None:
        print(f"created {match_id}: join seat 1 to play against me", file=sys.stderr)
    else:
        print(f"created {match_id}: playing seat 0 against the {args.vs_ai} AI", file=sys.stderr)
    return match_id, args.token if player else str(created["tokens"][0]["token"])


async def challenges(client: httpx.AsyncClient, token: str) -> AsyncIterator[dict[str, Any]]:
    """The player's challenge news as it comes, for ever: the stream ends now and then,
    and is taken up again after the last news received."""
    last = 0
    auth = {"Authorization": f"Bearer {token}"}
    while True:
        headers = {**auth, "Last-Event-ID": str(last)}
        async with client.stream("GET", "/v1/me/challenges/stream", headers=headers) as stream:
            if not stream.is_success:
                await stream.aread()
                checked(stream)
            event: dict[str, str] = {}
            async for line in stream.aiter_lines():
                if line:
                    name, _, value = line.partition(": ")
                    event[name] = value
                    continue
                if event.get("event") == "challenge":
                    last = int(event["id"])
                    yield json.loads(event["data"])
                event = {}


async def challenge_and_play(client: httpx.AsyncClient, args: argparse.Namespace) -> list[Any]:
    """Challenge ``--challenge``, wait for the answer, and play the match if accepted."""
    auth = {"Authorization": f"Bearer {args.token}"}
    body = {"opponent": args.challenge, "rated": args.rated}
    made = checked(await client.post("/v1/challenges", json=body, headers=auth))
    print(f"challenged {args.challenge}: {made['id']}", file=sys.stderr)
    async for news in challenges(client, args.token):
        if news["id"] != made["id"]:
            continue
        if news["status"] != "accepted":
            raise Refused(f"challenge {made['id']}: {news['status']}")
        return [await played(client, news["match"], args.token)]
    raise AssertionError("the news never ends")


async def accept_and_play(client: httpx.AsyncClient, args: argparse.Namespace) -> list[Any]:
    """Accept each challenge made to the player as it comes, and play it out."""
    auth = {"Authorization": f"Bearer {args.token}"}
    me = checked(await client.get("/v1/me", headers=auth))["player"]["handle"]
    print(f"{me} takes challenges", file=sys.stderr)
    outcomes: list[Any] = []
    async for news in challenges(client, args.token):
        if news["status"] != "pending" or news["opponent"] != me:
            continue
        answer = await client.post(f"/v1/challenges/{news['id']}/accept", headers=auth)
        if answer.status_code == 409:
            continue  # withdrawn or expired meanwhile
        match = checked(answer)["match"]
        outcome = await played(client, match["id"], args.token)
        print(json.dumps(outcome), flush=True)
        outcomes.append(outcome)
        if len(outcomes) == args.games:
            break
    return outcomes


async def played(client: httpx.AsyncClient, match_id: str, token: str) -> dict[str, Any]:
    final = await play_seat(client, match_id, token)
    # end_reason: "score", or how the match ended early ("resigned", "timeout", ...).
    return {"match": match_id, **{k: final[k] for k in ("scores", "winner", "end_reason")}}


def options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--match", help="a match id to join (--seat) or play (--token)")
    start.add_argument(
        "--vs-ai", metavar="LEVEL", help="create a match against an AI level (easy ... expert)"
    )
    parser.add_argument("--seat", type=int, help="the open seat of --match to join")
    start.add_argument(
        "--register", metavar="HANDLE", help="register a bot player, print its token"
    )
    start.add_argument("--challenge", metavar="HANDLE", help="challenge a player and play it")
    start.add_argument(
        "--accept-challenges",
        action="store_true",
        help="accept the challenges made to the player as they come, and play them",
    )
    parser.add_argument(
        "--games", type=int, default=0, help="with --accept-challenges: stop after this many"
    )
    parser.add_argument(
        "--token", help="a seat token of --match, or a player token (scp_...) to play as"
    )
    parser.add_argument("--rated", action="store_true", help="with --vs-ai: a rated match")
    parser.add_argument("--name", help="a display name for the seat or player it makes")
    args = parser.parse_args(argv)
    player = is_player_token(args.token)
    if args.match is None and args.seat is not None:
        parser.error("--seat goes with --match")
    if args.match is None and args.token is not None and not player:
        parser.error("a seat token goes with --match; a player token starts with scp_")
    if args.match is not None and not player and (args.seat is None) == (args.token is None):
        parser.error("--match needs one of --seat (join that open seat) or --token (play yours)")
    if args.rated and not (player and (args.vs_ai or args.challenge) is not None):
        parser.error("--rated goes with --vs-ai or --challenge, and a player token")
    if (args.challenge is not None or args.accept_challenges) and not player:
        parser.error("--challenge and --accept-challenges need a player token (--token scp_...)")
    return args


async def main(argv: list[str]) -> int:
    args = options(argv)
    try:
        async with connect(args.url) as client:
            if args.register is not None:
                print(json.dumps(await register(client, args.register, args.name)))
                return 0
            if args.accept_challenges:
                await accept_and_play(client, args)
                return 0
            if args.challenge is not None:
                [outcome] = await challenge_and_play(client, args)
            else:
                outcome = await played(client, *await take_seat(client, args))
    except Refused as error:
        print(f"bot: {error}", file=sys.stderr)
        return 1
    except httpx.TransportError as error:
        print(f"bot: cannot reach the server at {args.url}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(sys.argv[1:])))
    except KeyboardInterrupt:
        sys.exit(130)
