"""The HTTP adapter: the Litestar app over the match service (docs/api.md is its contract)."""

# The one place of the version: pyproject.toml reads it for the package (its version is
# "dynamic"), the OpenAPI document serves it as info.version, `scopa --version` prints it.
__version__ = "0.4.0"
