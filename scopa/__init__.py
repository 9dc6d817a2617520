"""scopa: a game server for the Italian card game Scopa.

The layers inside: ``domain`` (pure Scopa), ``service`` (use cases over ports), ``api``
(the HTTP contract), ``infra`` (storage and the job queue); the modules at this level
build a process out of them (docs/architecture.md).
"""
