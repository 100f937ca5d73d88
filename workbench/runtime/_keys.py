"""Idempotency keys: a small SQLite store so a repeated non-idempotent call replays its first result.

The store lives at `$BURGEE_STATE_DIR/idempotency.sqlite3` (default
`$XDG_STATE_HOME/burgee/`, else `~/.local/state/burgee/`). A key is claimed inside an
IMMEDIATE transaction, so two processes racing on one key cannot both run the command: the
second waits for the first result (and replays it) or is told to retry later.
"""

from __future__ import annotations

import os
import time

from workbench.declaration.model import Fail

DEFAULT_TTL = 24 * 3600
"""Seconds a key is remembered."""

WAIT_FOR_PENDING = 15.0
"""Seconds a second caller waits for the first one holding the same key."""


def store_path(environ) -> str:
    base = environ.get("BURGEE_STATE_DIR")
    if not base:
        state = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                                "state")
        base = os.path.join(state, "burgee")
    return os.path.join(base, "idempotency.sqlite3")


def _connect(path):
    """The store, created private: the folder 0700, the file 0600 (it holds results)."""
    import sqlite3
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    if os.stat(path).st_mode & 0o077:
        os.chmod(path, 0o600)
    connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    for attempt in range(200):   # creating the table can race another process's first use
        try:
            connection.execute(
                "CREATE TABLE IF NOT EXISTS keys (scope TEXT, key TEXT, digest TEXT, state TEXT, "
                "result TEXT, exit INTEGER, created REAL, expires REAL, PRIMARY KEY (scope, key))")
            return connection
        except sqlite3.OperationalError:
            if attempt == 199:
                raise
            time.sleep(0.05)
    return connection


def input_digest(request) -> str:
    """A digest of the call's inputs, without the key itself."""
    import hashlib
    from workbench.runtime.envelope import encode
    inputs = {"options": dict(request.options), "args": dict(request.args),
              "extras": {k: v for k, v in request.extras.items() if k != "idempotency_key"}}
    return hashlib.sha256(encode(inputs).encode()).hexdigest()


class Claim:
    """A claimed key: `replay` holds the stored envelope when this call must not run again."""

    def __init__(self, connection, scope, key, digest, replay=None):
        self.connection = connection
        self.scope = scope
        self.key = key
        self.digest = digest
        self.replay = replay

    def finish(self, doc, exit_code: int, ttl: float = DEFAULT_TTL) -> None:
        """Store a successful result; forget the key after a failure so a retry runs again."""
        from workbench.runtime.envelope import encode
        if exit_code == 0:
            now = time.time()
            self.connection.execute(
                "UPDATE keys SET state='done', result=?, exit=?, expires=? WHERE scope=? AND key=?",
                (encode(doc), exit_code, now + ttl, self.scope, self.key))
        else:
            self.connection.execute("DELETE FROM keys WHERE scope=? AND key=? AND state='pending'",
                                    (self.scope, self.key))
        self.connection.close()


def claim(program, command, request, environ) -> Claim:
    """Claim the key for this call, or return the stored result; Fail on a conflicting input."""
    import json

    from workbench.runtime.envelope import safe_text
    key = request.extras["idempotency_key"]
    stored_key = safe_text(key)   # bytes that are not UTF-8 (argv) as escapes: SQLite wants UTF-8
    scope = program.name + " " + " ".join(command.path)
    digest = input_digest(request)
    connection = _connect(store_path(environ))
    deadline = time.monotonic() + WAIT_FOR_PENDING
    while True:
        now = time.time()
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.execute("DELETE FROM keys WHERE expires < ?", (now,))
            row = connection.execute("SELECT digest, state, result FROM keys WHERE scope=? AND "
                                     "key=?", (scope, stored_key)).fetchone()
            if row is None:
                connection.execute("INSERT INTO keys VALUES (?, ?, ?, 'pending', NULL, NULL, ?, ?)",
                                   (scope, stored_key, digest, now, now + DEFAULT_TTL))
                connection.execute("COMMIT")
                return Claim(connection, scope, stored_key, digest)
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        stored_digest, state, result = row
        if stored_digest != digest:
            connection.close()
            raise Fail("idempotency_conflict",
                       f"idempotency key {key!r} was used with different input",
                       hint="use a new key for a different call, or repeat the first call "
                            "exactly", exit=5)
        if state == "done":
            doc = json.loads(result)
            doc.setdefault("meta", {})["replayed"] = True
            return Claim(connection, scope, stored_key, digest, replay=doc)
        if time.monotonic() > deadline:
            connection.close()
            raise Fail("in_progress", f"a call with idempotency key {key!r} is still running",
                       hint="retry the same call later; it will return that call's result",
                       exit=6, retryable=True)
        time.sleep(0.05)
