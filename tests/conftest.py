"""The shared fixtures, registered for every test folder by name rather than star-imported
into each folder's conftest: pytest takes ``pytest_plugins`` from this conftest only.

``tests.support.databases``: SQLite and Postgres databases, migrated or empty.
``tests.support.fake_ports``: the use cases over in-memory fakes of the ports.
``tests.support.untraced``: the ``untraced`` mark, a test run without the coverage tracer.
"""

pytest_plugins = ["tests.support.databases", "tests.support.fake_ports", "tests.support.untraced"]
