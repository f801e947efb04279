"""Whether a port can be listened on, asked before a verb starts any work."""

from __future__ import annotations

import errno
import socket

from avadata.errors import ConfigError, PortInUse


def check_free(port: int, option: str, host: str = "127.0.0.1") -> None:
    """PortInUse (naming `option`, the flag that chose the port) when `host:port` is taken;
    ConfigError when `host` is no address of this machine. Bound and released at once, with
    SO_REUSEADDR as servers bind, so a port in TIME_WAIT counts as free."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except (socket.gaierror, UnicodeError) as exc:  # gaierror is an OSError: first
            raise ConfigError(
                f"--host {host!r} is not an address of this machine ({exc})"
            ) from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(
                    f"port {port} on {host} is in use ({option} {port}): stop what listens "
                    f"there or pick another {option}"
                ) from None
            if exc.errno in (errno.EACCES, errno.EPERM):
                raise ConfigError(
                    f"no permission to listen on port {port} ({option} {port}): pick a port "
                    "above 1023"
                ) from None
            raise ConfigError(
                f"cannot listen on {host} port {port} ({exc.strerror}): check --host and {option}"
            ) from None
