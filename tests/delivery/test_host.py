"""The delivery worker in its own process (delivery/host.py), as `avadata serve` and
`avadata index` start it: it delivers, below its host's CPU priority (the kernel's nice value
of each process, read from /proc), counts what it POSTs for the host's /metrics, is started
again when killed, and stops when asked with its cursor written. Truth: the synthetic chain's
own records (which transactions touch the watched contracts) and the receiver's arrivals."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from avadata.delivery.host import DeliveryHost
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.webhooks import registry
from tests.api.synthetic import write_store
from tests.delivery.test_worker import _expected, _hook, _wait
from tests.support.receiver import receiving


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) counts as gone.
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


def test_delivers_from_a_lower_priority_process_restarted_when_killed(tmp_path: Path) -> None:
    url, chain = write_store(tmp_path / "host.db")
    writer = make_engine(url)
    expected = _expected(chain)
    half = len(expected) // 2
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert Settings(db_url=url).webhook_nice == 19  # the default: ingest goes first
    settings = Settings(
        db_url=url, webhook_poll_s=0.02, webhook_lease_s=2, webhook_nice=min(19, ours + 7)
    )
    with receiving(lambda _n, _m: 200) as (rec, hook_url):
        wid = _hook(writer, hook_url)
        host = DeliveryHost(settings)
        host.start()
        try:
            first = host.pid
            assert first is not None
            _wait(lambda: len(rec.arrivals()) >= half and host.counts()["acknowledged"] > 0)
            counted = host.counts()["acknowledged"]
            assert os.getpriority(os.PRIO_PROCESS, first) == min(19, ours + 7)
            assert os.getpriority(os.PRIO_PROCESS, 0) == ours
            os.kill(first, signal.SIGKILL)
            _wait(lambda: host.pid not in (None, first) and not _alive(first))
            # Whatever the killed one had acknowledged but not written is sent again, under
            # the same messageId: every event arrives at least once.
            want = {h for _, h in expected}
            _wait(lambda: {a.tx_hash for a in rec.arrivals()} >= want)
            second = host.pid
        finally:
            host.stop()
        assert second is not None and not _alive(second)
    ids: dict[str, str] = {}
    for a in rec.arrivals():
        assert ids.setdefault(a.tx_hash, a.message["messageId"]) == a.message["messageId"]
    # A restarted process adds to its predecessor's counts (those of the killed one's last
    # half second are lost with it).
    counts = host.counts()
    assert counted <= counts["acknowledged"] <= len(rec.arrivals())
    assert counts["failed"] == counts["refused"] == 0
    hook = registry.get(writer, None, wid)
    assert hook is not None and hook.cursor == expected[-1][0]  # written at the stop
    writer.dispose()
