"""A PostgreSQL writer session's server process at its client's CPU priority (same host only).

Stage: store. Why: `avadata index` lowers its writer's priority below its fetch processes
(indexer/fetch/spawn.yield_cpu), which are the backfill's critical path when cores are scarce.
On SQLite the engine runs inside the writer, so all the writer's work yields; on PostgreSQL
most of it (the COPYs' rows and their index entries) runs in the session's server process, at
the server's priority, beside the fetch processes. So a writer connection whose client runs
niced asks the kernel to give its server process the same nice value, when it may: the
server runs on this host (the session's process title names this connection's client port,
or a Unix socket with this session's user and database) and this process has the right to
(root or CAP_SYS_NICE; a server of another user otherwise says no and nothing changes).

Only the scheduling of that one server process changes: what it writes and when it commits
do not, so the crash guarantees are the same. The process ends with its session.
"""

from __future__ import annotations

import os
import re
import socket
from typing import Any

# Set to "0" to leave the server processes' priority alone.
ENV = "AVADATA_PG_FOLLOW_NICE"


def follow(dbapi_connection: Any) -> bool:
    """Give the session's server process this process's nice value when this process runs
    niced and the server is local; True when it did."""
    if os.environ.get(ENV) == "0":
        return False
    try:
        mine = os.getpriority(os.PRIO_PROCESS, 0)
    except OSError:
        return False
    if mine <= 0:
        return False
    pid = _local_backend(dbapi_connection)
    if pid is None:
        return False
    try:
        if os.getpriority(os.PRIO_PROCESS, pid) < mine:
            os.setpriority(os.PRIO_PROCESS, pid, mine)
    except OSError:  # no right to (another user's process), or gone
        return False
    return True


def _local_backend(dbapi_connection: Any) -> int | None:
    """The session's server process id when that process is on this host, else None."""
    pgconn = dbapi_connection.pgconn
    pid = int(pgconn.backend_pid)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            title = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    # A backend's title: "postgres: [<cluster_name>: ]<user> <database> <client>
    # <state>", the client "<host>(<port>)", or "[local]" for a Unix socket
    # (update_process_title, on by default on Linux).
    user, db = re.escape(pgconn.user.decode()), re.escape(pgconn.db.decode())
    found = re.match(rf"postgres: (?:[^ ]+: )?{user} {db} (\S+) ", title)
    if found is None:
        return None
    client = found.group(1)
    if client == "[local]":
        return pid
    try:
        sock = socket.socket(fileno=os.dup(pgconn.socket))
    except OSError:
        return None
    with sock:
        try:
            port = sock.getsockname()[1]
        except (OSError, IndexError, TypeError):
            return None
    return pid if client.endswith(f"({port})") else None
