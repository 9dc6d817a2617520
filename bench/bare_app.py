"""The yardstick for bench/api.py: Litestar returning a small JSON object, nothing else.

    python -m bench.bare_app [--host H] [--port P]

Served exactly as ``scopa serve`` serves the real app (infra/cli.py: ``uvicorn.run`` with
the default loop and HTTP parser, one process, no uvicorn logging), so the difference
between the two is what the real app does per request.
"""

from __future__ import annotations

import argparse

import uvicorn
from litestar import Litestar, get


@get("/")
async def hello() -> dict[str, object]:
    return {"hello": "world", "n": 1}


app = Litestar([hello])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args(argv)
    uvicorn.run(app, host=args.host, port=args.port, log_config=None, access_log=False)


if __name__ == "__main__":
    main()
