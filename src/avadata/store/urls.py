"""Store URLs as people see them: with every password masked (messages and log lines).

Stage: store, and light on purpose (no SQLAlchemy): the command line's log filter and error
lines use it (cli/failures.py), whatever verb runs.
"""

from __future__ import annotations

import re

# user:password@ in a URL: the password is replaced, the rest kept. Greedy up to the last @
# before the path: a password may hold an unescaped @.
_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]*):[^\s/]*@", re.IGNORECASE)


def mask(text: str) -> str:
    """`text` with the password of every URL in it replaced by ***."""
    return _PASSWORD.sub(r"\1:***@", text)
