"""A niced writer's PostgreSQL server process runs at the writer's nice value (same host, the
right to renice); a reader's, and a writer's told not to, keep the server's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from avadata.store import backend_priority

pytestmark = pytest.mark.postgres

_PROBE = """
import json, sys
from avadata.store.engine import make_engine

def nice_of(engine):
    with engine.connect() as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[16])  # field 19: nice

url = sys.argv[1]
print(json.dumps([nice_of(make_engine(url)), nice_of(make_engine(url, read_only=True))]))
"""


def _probe(url: str, nice: int, **env: str) -> list[int]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, url],
        env={**os.environ, **env},
        preexec_fn=lambda: os.nice(nice),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


@pytest.mark.skipif(os.geteuid() != 0, reason="renicing the server's processes takes root")
def test_a_niced_writers_server_process_follows_its_nice(pg_cluster):
    url = pg_cluster.url("postgres")
    assert _probe(url, 4) == [4, 0]  # the writer's follows; the API reader's does not
    assert _probe(url, 0) == [0, 0]  # a writer at the default priority changes nothing
    assert _probe(url, 4, **{backend_priority.ENV: "0"}) == [0, 0]
