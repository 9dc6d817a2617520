"""Processes that end with the process that started them, however it ended.

The AI pool's processes hold one another's pipes open: every worker holds the fork
server's "alive" pipe and the pool's call queue, both ends. So when the server dies
without shutting its pool down (kill -9, the OOM killer, a pool started while it stopped)
none of them reads an end of file, and the fork server, its workers and the resource
tracker all live on, re-parented, each holding its memory. Linux's parent-death signal
(``prctl(PR_SET_PDEATHSIG)``) has the kernel kill a process when its parent ends: the fork
server with the server, each worker with the fork server; the resource tracker then reads
the end of its pipe and exits by itself.

The signal comes when the *thread* that forked the process ends, not its whole process:
``ai_pool.make_executor`` starts the fork server from the thread running the event loop.
Elsewhere than on Linux this is a no-op.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> None:
    """SIGKILL this process as soon as the thread that started it ends."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_PDEATHSIG): {os.strerror(error)}")


def children_die_with_me() -> None:
    """Every process this one forks from now on dies with it: armed in the child right
    after the fork, before it imports anything (a pool worker's imports take seconds)."""
    me = os.getpid()

    def in_child() -> None:
        die_with_parent()
        if os.getppid() != me:
            os._exit(1)  # this process ended before the signal was armed

    os.register_at_fork(after_in_child=in_child)
