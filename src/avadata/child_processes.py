"""What avadata's child processes share: dying with their parent and running below it.

Used by the indexer's fetch processes (indexer/fetch/spawn.py) and the webhook delivery
process (delivery/host.py); light on purpose (imported first thing in a child).
"""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when the parent dies (a kill -9 of the parent included). Linux
    ties this to the parent's thread that started the child: start children from a thread
    that lives as long as they should."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass
    if os.getppid() != parent:  # the parent went before prctl took effect
        os._exit(1)


def ignore_ctrl_c() -> None:
    """Ctrl-C reaches the whole process group: the parent decides how its children stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def nice_at_least(nice: int) -> None:
    """Run this whole process at `nice` at least (a process already lower keeps its value)."""
    try:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        if now < nice:
            os.nice(nice - now)
    except OSError:  # never expected (lowering one's own priority needs no privilege)
        pass
