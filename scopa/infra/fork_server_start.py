"""Imported by the AI pool's fork server alone, as it starts (``ai_pool.make_executor``
names it to ``set_forkserver_preload``): the fork server dies with the server, and each
worker it forks with the fork server.

If the server is already gone by now, the fork server needs no signal: the server was
the only holder of its "alive" pipe, no worker has been forked yet, and its first look at
that pipe ends it.
"""

from scopa.infra.parent_death import children_die_with_me, die_with_parent

die_with_parent()
children_die_with_me()
