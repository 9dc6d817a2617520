"""The use cases on the fakes: no database, no HTTP."""

from tests.support.fake_ports import *  # noqa: F403
