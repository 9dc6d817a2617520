"""A small Scopa bot that plays over HTTP, for bot authors to start from.

    python examples/bot.py --url http://127.0.0.1:8000     # create, leave seat 1 open, play
    python examples/bot.py --url ... --match ID --seat 1   # join an open seat and play
    python examples/bot.py --url ... --match ID --token T  # play a seat you hold
    python examples/bot.py ... --name Bot                  # the seat's name, shown to all

It waits for its turn with the long-poll events route, from the view's ``last_seq``, then
plays the legal move that takes the most cards (a sweep first), as the server lists them
in ``legal_moves``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import httpx


def connect(url: str) -> httpx.AsyncClient:
    """A client for the server at ``url``.

    It drops idle connections before the server's 5 s keep-alive does, or a request can
    race the server closing the socket under it ("Server disconnected").
    """
    return httpx.AsyncClient(base_url=url, timeout=30, limits=httpx.Limits(keepalive_expiry=2))


def pick(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """A sweep if there is one, else the move that takes the most cards."""
    return max(moves, key=lambda m: (m["sweep"], len(m["capture"]), "7D" in m["capture"]))


async def play_seat(client: httpx.AsyncClient, match_id: str, token: str) -> dict[str, Any]:
    """Play one seat until the match is finished; returns the final view."""
    auth = {"Authorization": f"Bearer {token}"}
    while True:
        view = (await client.get(f"/v1/matches/{match_id}", headers=auth)).raise_for_status().json()
        if view["status"] == "finished":
            return view
        if view["turn"] == view["you"] and view["legal_moves"]:
            move = pick(view["legal_moves"])
            answer = await client.post(
                f"/v1/matches/{match_id}/moves",
                headers={**auth, "If-Match": f'"{view["version"]}"'},
                json={"card": move["card"], "capture": move["capture"]},
            )
            if answer.status_code in (409, 412):  # somebody moved first: look again
                continue
            answer.raise_for_status()
            continue
        # Whatever happens after the view held: the next move, a join, the end.
        events = await client.get(
            f"/v1/matches/{match_id}/events",
            params={"after": view["last_seq"], "wait": 10},
            headers=auth,
        )
        events.raise_for_status()


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--match", help="a match id to join or play")
    parser.add_argument("--seat", type=int, help="the open seat to join")
    parser.add_argument("--token", help="a seat token you already hold")
    parser.add_argument("--name", help="a display name for the seat it creates or joins")
    args = parser.parse_args(argv)
    named = {} if args.name is None else {"name": args.name}
    async with connect(args.url) as client:
        if args.match is None:
            created = await client.post(
                "/v1/matches", json={"seats": [{"kind": "human", **named}, {"kind": "open"}]}
            )
            body = created.raise_for_status().json()
            match_id, token = body["match"]["id"], body["tokens"][0]["token"]
            print(f"created {match_id}: join seat 1 to play against me", file=sys.stderr)
        elif args.token is None:
            joined = await client.post(
                f"/v1/matches/{args.match}/seats/{args.seat}/join", json=named
            )
            match_id, token = args.match, joined.raise_for_status().json()["token"]
        else:
            match_id, token = args.match, args.token
        final = await play_seat(client, match_id, token)
    print(json.dumps({"match": match_id, "scores": final["scores"], "winner": final["winner"]}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
