"""Run the facade with uvicorn in a background thread, on 127.0.0.1.

Stage: devnet facade. Lets Devnet (and tests) start and stop the facade from synchronous code.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Sequence

import uvicorn
from starlette.routing import BaseRoute

from avadata.devnet.facade.app import create_app
from avadata.devnet.facade.routes import ChainRoute

HOST = "127.0.0.1"


class _NoUpgradeWarnings(logging.Filter):
    """uvicorn warns at every WebSocket handshake it cannot upgrade (it has no WebSocket
    library here); /ext/bc/<chain>/ws answers those with a redirect on purpose (app.py)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(
            ("Unsupported upgrade request", "No supported WebSocket library")
        )


logging.getLogger("uvicorn.error").addFilter(_NoUpgradeWarnings())


class FacadeServer:
    """The facade on `port` (0: a free one, read back from `port` after start)."""

    def __init__(
        self, chains: Sequence[ChainRoute], port: int = 9650, extra_routes: Sequence[BaseRoute] = ()
    ) -> None:
        self.chains = list(chains)
        self.extra_routes = list(extra_routes)
        self.port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def rpc_url(self, chain: str) -> str:
        return f"{self.url}/ext/bc/{chain}/rpc"

    def start(self, timeout: float = 15.0) -> None:
        # Bind here rather than in uvicorn so port 0 works and a busy port fails now, loudly.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            create_app(self.chains, self.extra_routes),
            log_level="warning",
            access_log=False,
            lifespan="on",
        )
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="devnet-facade", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"facade did not start on {self.url}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self._server = self._thread = None
