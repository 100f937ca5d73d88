"""Idempotency keys: a small SQLite store so a repeated non-idempotent call replays its first result.

The store lives at `$BURGEE_STATE_DIR/idempotency.sqlite3` (default
`$XDG_STATE_HOME/burgee/`, else `~/.local/state/burgee/`). A key is claimed inside an
IMMEDIATE transaction, so two processes racing on one key cannot both run the command: the
second waits for the first result (and replays it) or is told to retry later. A claim names
its holder (host, pid namespace, pid, process start time); a caller that finds the holder
dead (or its pid reused) takes the claim over at once. Only exit 0 and a partial result
(exit 8) are kept for replay; every other outcome releases the key so a retry runs.
"""

from __future__ import annotations

import os
import time

from workbench.declaration.model import Fail

DEFAULT_TTL = 24 * 3600
"""Seconds a key is remembered."""

WAIT_FOR_PENDING = 15.0
"""Seconds a second caller waits for a live holder of the same key."""

KEPT = (0, 8)
"""Exit codes whose envelope is kept for replay (success, partial); others release the key."""

_TABLE = ("CREATE TABLE IF NOT EXISTS claims (scope TEXT, key TEXT, digest TEXT, state TEXT, "
          "result TEXT, exit INTEGER, created REAL, expires REAL, token TEXT, host TEXT, "
          "pidns TEXT, pid INTEGER, started TEXT, PRIMARY KEY (scope, key))")


def store_path(environ) -> str:
    base = environ.get("BURGEE_STATE_DIR")
    if not base:
        state = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                                "state")
        base = os.path.join(state, "burgee")
    return os.path.join(base, "idempotency.sqlite3")


def _unavailable(path, error) -> Fail:
    """The refusal for a store that cannot be opened, read or written, naming file and fix."""
    return Fail("idempotency_store_unavailable",
                f"the idempotency store {path} cannot be used: {error}",
                hint=f"make {path} (and its folder) writable by you, or remove it if it is "
                     "corrupt (its keys are forgotten), or set BURGEE_STATE_DIR to a writable "
                     "folder", exit=7)


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
            connection.execute(_TABLE)
            return connection
        except sqlite3.OperationalError as error:
            if attempt == 199 or "locked" not in str(error):
                connection.close()
                raise
            time.sleep(0.05)
    return connection


def input_digest(request) -> str:
    """sha256 of the call's parsed, default-filled inputs as JSON with sorted keys (not the key).

    Flag order, MCP argument order and a default given or omitted do not change it; only the
    hash is stored, never the inputs (a secret among them stays out of the store).
    """
    import hashlib
    import json
    inputs = {"options": dict(request.options), "args": dict(request.args),
              "extras": {k: v for k, v in request.extras.items()
                         if k not in ("idempotency_key", "dry_run") and v is not None}}
    text = json.dumps(inputs, sort_keys=True, ensure_ascii=True, default=repr,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _started(pid):
    """The process's start time (clock ticks since boot) from /proc, None when it is gone or a
    zombie; "" where /proc is not there (then liveness is `kill(pid, 0)`)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except FileNotFoundError:
        return None if os.path.isdir("/proc/self") else ""
    except (OSError, IndexError):
        return ""
    if fields[0] in (b"Z", b"X"):   # killed, not yet reaped: dead
        return None
    return fields[19].decode()


def _pidns():
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _holder() -> tuple:
    """(host, pid namespace, pid, start time) of this process."""
    import socket
    return socket.gethostname(), _pidns(), os.getpid(), _started(os.getpid()) or ""


def _holder_dead(host, pidns, pid, started) -> bool:
    """True when the holder is known dead: same host and pid namespace, and its pid is gone or
    reused (another start time). On another host or namespace it is presumed alive."""
    here, namespace, _, _ = _holder()
    if host != here or (pidns or "") != namespace or not pid:
        return False
    now = _started(pid)
    if now is None:
        return True
    if now == "":   # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False
    return bool(started) and now != started


class Claim:
    """A claimed key: `replay` holds the stored envelope when this call must not run again."""

    def __init__(self, connection, scope, key, token, replay=None):
        self.connection = connection
        self.scope = scope
        self.key = key
        self.token = token
        self.replay = replay

    def finish(self, doc, exit_code: int, ttl: float = DEFAULT_TTL) -> None:
        """Keep a success or partial result for replay; release the key after anything else."""
        from workbench.runtime.envelope import encode
        if self.connection is None:
            return
        if exit_code in KEPT and doc is not None:
            self._end("UPDATE claims SET state='done', result=?, exit=?, expires=? WHERE "
                      "scope=? AND key=? AND token=?",
                      (encode(doc), exit_code, time.time() + ttl, self.scope, self.key,
                       self.token))
        else:
            self.release()

    def release(self) -> None:
        """Forget a key this call still holds, so a retry runs; a no-op once finished."""
        if self.connection is not None:
            self._end("DELETE FROM claims WHERE scope=? AND key=? AND token=? AND "
                      "state='pending'", (self.scope, self.key, self.token))

    def _end(self, sql, values):
        """Write once and close; a store that fails now leaves the claim to a takeover (the
        holder is gone once this process ends) rather than hide the result."""
        import sqlite3
        connection, self.connection = self.connection, None
        try:
            connection.execute(sql, values)
        except sqlite3.Error:
            pass
        finally:
            connection.close()


def claim(program, command, request, environ) -> Claim:
    """Claim the key for this call, or return the stored result; Fail on a conflicting input,
    a live holder past the wait, or a store that cannot be used."""
    import sqlite3
    path = store_path(environ)
    try:
        return _claim(program, command, request, path)
    except (sqlite3.Error, OSError) as error:
        raise _unavailable(path, error) from None


def _claim(program, command, request, path) -> Claim:
    import json
    import secrets

    from workbench.runtime.envelope import safe_text
    key = request.extras["idempotency_key"]
    stored_key = safe_text(key)   # bytes that are not UTF-8 (argv) as escapes: SQLite wants UTF-8
    scope = program.name + " " + " ".join(command.path)
    digest = input_digest(request)
    token = secrets.token_hex(8)
    holder = _holder()
    connection = _connect(path)
    deadline = time.monotonic() + WAIT_FOR_PENDING
    try:
        while True:
            now = time.time()
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute("DELETE FROM claims WHERE expires < ?", (now,))
                row = connection.execute(
                    "SELECT digest, state, result, host, pidns, pid, started FROM claims "
                    "WHERE scope=? AND key=?", (scope, stored_key)).fetchone()
                taken = row is None or (row[0] == digest and row[1] == "pending"
                                        and _holder_dead(*row[3:]))
                if taken:
                    connection.execute(
                        "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, 'pending', NULL, NULL, ?, "
                        "?, ?, ?, ?, ?, ?)",
                        (scope, stored_key, digest, now, now + DEFAULT_TTL, token, *holder))
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            if taken:
                return Claim(connection, scope, stored_key, token)
            stored_digest, state, result = row[:3]
            if stored_digest != digest:
                raise Fail("idempotency_conflict",
                           f"idempotency key {key!r} was used with different input",
                           hint="use a new key for a different call, or repeat the first call "
                                "exactly", exit=5)
            if state == "done":
                doc = json.loads(result)
                doc.setdefault("meta", {})["replayed"] = True
                connection.close()
                return Claim(None, scope, stored_key, token, replay=doc)
            if time.monotonic() > deadline:
                raise Fail("in_progress", f"a call with idempotency key {key!r} is still running",
                           hint="retry the same call later; it will return that call's result",
                           exit=6, retryable=True)
            time.sleep(0.05)
    except BaseException:
        connection.close()
        raise
