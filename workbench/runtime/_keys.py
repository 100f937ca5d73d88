"""Idempotency keys: a store so a repeated non-idempotent call replays its first result.

One interface (`Store`), two implementations: a SQLite file, the embedded default, at
`$BURGEE_STATE_DIR/idempotency.sqlite3` (default `$XDG_STATE_HOME/burgee/`, else
`~/.local/state/burgee/`), and PostgreSQL when `BURGEE_IDEMPOTENCY_URL=postgresql://...`
(`workbench.runtime._keys_pg`, psycopg 3 from `pip install 'burgee[postgres]'`), which shares
keys across workers and machines; `workbench.runtime._idempotency` picks one and claims a
call's key. The rules live here, once, for both:

- A key is claimed inside one serialised transaction per key, so two callers racing on one key
  cannot both run the command: the second waits for the first result (and replays it), is told
  to retry later (`in_progress`), or is refused (`idempotency_conflict`, other input).
- A claim names its holder (host, pid namespace, pid, process start time) and holds a lease
  (`BURGEE_IDEMPOTENCY_LEASE` seconds, default 30) that a live holder renews from a thread.
  A caller that finds a same-host holder dead (or its pid reused) takes the claim over at once;
  a holder elsewhere (another host or pid namespace) cannot be checked, so its claim is taken
  over only once its lease ran out (docs/decisions.md).
- Only exit 0 and a partial result (exit 8) are kept for replay, for `DEFAULT_TTL`; every other
  outcome releases the key so a retry runs.
"""

from __future__ import annotations

import os
import threading
import time

from workbench.declaration.model import Fail

DEFAULT_TTL = 24 * 3600
"""Seconds a key is remembered."""

DEFAULT_LEASE = 30.0
"""Seconds a pending claim lasts without its holder renewing it (BURGEE_IDEMPOTENCY_LEASE)."""

WAIT_FOR_PENDING = 15.0
"""Seconds a second caller waits for a live holder of the same key."""

KEPT = (0, 8)
"""Exit codes whose envelope is kept for replay (success, partial); others release the key."""

COLUMNS = ("scope", "key", "digest", "state", "result", "exit", "created", "expires", "token",
           "host", "pidns", "pid", "started")
"""The one row shape of both stores (state: 'pending' or 'done')."""

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


def _refusal(message, hint) -> Fail:
    return Fail("idempotency_store_unavailable", message, hint=hint, exit=7)


def lease_seconds(environ) -> float:
    """BURGEE_IDEMPOTENCY_LEASE as seconds (> 0), else DEFAULT_LEASE."""
    text = environ.get("BURGEE_IDEMPOTENCY_LEASE")
    if not text:
        return DEFAULT_LEASE
    try:
        lease = float(text)
    except ValueError:
        lease = 0.0
    if not lease > 0:
        raise _refusal(f"BURGEE_IDEMPOTENCY_LEASE={text!r} is not a number of seconds",
                       f"set it to seconds above 0 (default {DEFAULT_LEASE:g}), or unset it")
    return lease


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


# --- holders -----------------------------------------------------------------------------------

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


def holder() -> tuple:
    """(host, pid namespace, pid, start time) of this process."""
    import socket
    return socket.gethostname(), _pidns(), os.getpid(), _started(os.getpid()) or ""


def _holder_dead(host, pidns, pid, started) -> bool:
    """True when the holder is known dead: same host and pid namespace, and its pid is gone or
    reused (another start time). Elsewhere it is presumed alive (until its lease runs out)."""
    here, namespace, _, _ = holder()
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


def takeable(row, digest) -> bool:
    """Whether a caller with input `digest` may claim a key whose live (unexpired) row is `row`
    (digest, state, result, host, pidns, pid, started), None when there is none: free, or
    pending for the same input under a holder known dead. Both stores decide with this."""
    return row is None or (row[0] == digest and row[1] == "pending" and _holder_dead(*row[3:]))


# --- the SQLite store --------------------------------------------------------------------------

class SQLiteStore:
    """The embedded store: one SQLite file, a claim serialised by an IMMEDIATE transaction.

    Every store has this interface: `connect()`, `attempt(scope, key, digest, token, holder,
    lease) -> (taken, row)`, `renew(scope, key, token, lease) -> bool`, `finish(scope, key,
    token, result, exit, ttl)`, `release(scope, key, token)`, `close()`, `errors` (what
    "cannot be used" raises) and `unavailable(error) -> Fail`.
    """

    def __init__(self, path):
        import sqlite3
        self.path = path
        self.errors = (sqlite3.Error, OSError)
        self.connection = None

    def unavailable(self, error) -> Fail:
        """The refusal for a store that cannot be opened, read or written, naming file and fix."""
        return _refusal(f"the idempotency store {self.path} cannot be used: {error}",
                        f"make {self.path} (and its folder) writable by you, or remove it if it "
                        "is corrupt (its keys are forgotten), or set BURGEE_STATE_DIR to a "
                        "writable folder")

    def connect(self) -> None:
        """Open the file, created private: the folder 0700, the file 0600 (it holds results)."""
        import sqlite3
        path = self.path
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
        connection = sqlite3.connect(path, timeout=30, isolation_level=None,
                                     check_same_thread=False)   # the lease renews from a thread
        for attempt in range(200):   # creating the table can race another process's first use
            try:
                connection.execute(_TABLE)
                break
            except sqlite3.OperationalError as error:
                if attempt == 199 or "locked" not in str(error):
                    connection.close()
                    raise
                time.sleep(0.05)
        self.connection = connection

    def attempt(self, scope, key, digest, token, holder, lease):
        connection = self.connection
        now = time.time()
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.execute("DELETE FROM claims WHERE expires < ?", (now,))
            row = connection.execute(
                "SELECT digest, state, result, host, pidns, pid, started FROM claims "
                "WHERE scope=? AND key=?", (scope, key)).fetchone()
            taken = takeable(row, digest)
            if taken:
                connection.execute(
                    "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, 'pending', NULL, NULL, ?, "
                    "?, ?, ?, ?, ?, ?)", (scope, key, digest, now, now + lease, token, *holder))
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        return taken, row

    def renew(self, scope, key, token, lease) -> bool:
        cursor = self.connection.execute(
            "UPDATE claims SET expires=? WHERE scope=? AND key=? AND token=? AND "
            "state='pending'", (time.time() + lease, scope, key, token))
        return cursor.rowcount == 1

    def finish(self, scope, key, token, result, exit_code, ttl) -> None:
        self.connection.execute(
            "UPDATE claims SET state='done', result=?, exit=?, expires=? WHERE scope=? AND "
            "key=? AND token=?", (result, exit_code, time.time() + ttl, scope, key, token))

    def release(self, scope, key, token) -> None:
        self.connection.execute("DELETE FROM claims WHERE scope=? AND key=? AND token=? AND "
                                "state='pending'", (scope, key, token))

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


# --- claims ------------------------------------------------------------------------------------

class Claim:
    """A claimed key: `replay` holds the stored envelope when this call must not run again.

    While held, a thread renews the lease every third of it, so a live holder elsewhere keeps
    its claim however long the command runs."""

    def __init__(self, store, scope, key, token, replay=None, lease=DEFAULT_LEASE):
        self.store = store
        self.scope = scope
        self.key = key
        self.token = token
        self.replay = replay
        self.lease = lease
        self._lock = threading.Lock()
        self._stop = threading.Event()
        if store is not None:
            threading.Thread(target=self._renew, name="burgee-key-lease", daemon=True).start()

    def _renew(self) -> None:
        while not self._stop.wait(self.lease / 3):
            with self._lock:
                if self.store is None:
                    return
                try:
                    if not self.store.renew(self.scope, self.key, self.token, self.lease):
                        return   # taken over (the lease ran out unrenewed): nothing to keep
                except self.store.errors:
                    pass         # a store down for a moment: try again next time

    def finish(self, doc, exit_code: int, ttl: float = DEFAULT_TTL) -> None:
        """Keep a success or partial result for replay; release the key after anything else."""
        from workbench.runtime.envelope import encode
        if self.store is None:
            return
        if exit_code in KEPT and doc is not None:
            self._end("finish", encode(doc), exit_code, ttl)
        else:
            self.release()

    def release(self) -> None:
        """Forget a key this call still holds, so a retry runs; a no-op once finished."""
        if self.store is not None:
            self._end("release")

    def _end(self, step, *values):
        """Write once and close; a store that fails now leaves the claim to a takeover (the
        holder is gone once this process ends) rather than hide the result."""
        self._stop.set()
        with self._lock:
            store, self.store = self.store, None
            if store is None:
                return
            try:
                getattr(store, step)(self.scope, self.key, self.token, *values)
            except store.errors:
                pass
            finally:
                store.close()
