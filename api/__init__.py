"""The HTTP adapter: the Litestar app over the match service (API.md is its contract)."""
