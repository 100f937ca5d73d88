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

import errno
import os
import stat
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


def input_digest(request, secret: bytes | None = None) -> str:
    """The digest of the call's parsed, default-filled inputs (not the key): `h1:` and an
    HMAC-SHA256 keyed with the store's own `secret`, so inputs that hold a secret cannot be
    guessed back from a copy of the store; without `secret`, the plain sha256 of stores made
    before (still compared, so their kept results replay).

    Flag order, MCP argument order, a default given or omitted and a number's spelling (`1`
    and `1.0` for a number option; `01` and `1` for an integer) do not change it; only the
    digest is stored, never the inputs.
    """
    import hashlib
    import json
    command = request.command
    inputs = {"options": _canonical(request.options, command.options if command else {}),
              "args": _canonical(request.args, {a.key: a for a in command.arguments}
                                 if command else {}),
              "extras": {k: v for k, v in request.extras.items()
                         if k not in ("idempotency_key", "dry_run") and v is not None}}
    text = json.dumps(inputs, sort_keys=True, ensure_ascii=True, default=repr,
                      separators=(",", ":")).encode()
    if secret is None:
        return hashlib.sha256(text).hexdigest()
    import hmac
    return "h1:" + hmac.new(secret, text, hashlib.sha256).hexdigest()


def _canonical(values, params) -> dict:
    """Values with each number written one way for its declared type: a number option's
    `1` and `1.0` are both `1.0` (and `-0.0` is `0.0`), an integer's are ints."""
    out = {}
    for key, value in dict(values).items():
        param = params.get(key)
        kind = getattr(param, "items", None) if getattr(param, "type", None) == "list" \
            else getattr(param, "type", None)
        out[key] = [_number(item, kind) for item in value] if isinstance(value, list) \
            else _number(value, kind)
    return out


def _number(value, kind):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if kind == "number":
        return float(value) + 0.0
    if kind == "integer" and float(value).is_integer():
        return int(value)
    return value


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


def takeable(row, digest, read_again) -> bool:
    """Whether a caller with input `digest` may claim a key whose live (unexpired) row is `row`
    (digest, state, result, host, pidns, pid, started), None when there is none: free, or
    pending for the same input under a holder known dead. Both stores decide with this.

    A holder found dead may have finished the key and ended between the read and the check
    (a call process exits right after it finishes): `read_again()` reads the row once more,
    after the check, and only an unchanged row is taken. Otherwise the caller reads it again."""
    if row is None:
        return True
    if not (row[0] == digest and row[1] == "pending" and _holder_dead(*row[3:])):
        return False
    return tuple(read_again() or ()) == tuple(row)


# --- the SQLite store --------------------------------------------------------------------------

class SQLiteStore:
    """The embedded store: one SQLite file, a claim serialised by an IMMEDIATE transaction.

    Every store has this interface: `connect()`, `secret` (its HMAC key, once connected),
    `attempt(scope, key, digest, token, holder, lease) -> (taken, row)`, `renew(scope, key, token, lease) -> bool`, `finish(scope, key,
    token, result, exit, ttl)`, `release(scope, key, token)`, `close()`, `errors` (what
    "cannot be used" raises) and `unavailable(error) -> Fail`.
    """

    def __init__(self, path):
        import sqlite3
        self.path = path
        self.errors = (sqlite3.Error, OSError)
        self.connection = None
        self.secret = None   # the HMAC key of the digests (`_secret`)

    def unavailable(self, error) -> Fail:
        """The refusal for a store that cannot be opened, read or written, naming file and fix."""
        return _refusal(f"the idempotency store {self.path} cannot be used: {error}",
                        f"make {self.path} (and its folder) writable by you, or remove it if it "
                        "is corrupt (its keys are forgotten), or set BURGEE_STATE_DIR to a "
                        "writable folder")

    def connect(self) -> None:
        """Open the file, which cannot be turned against its user: its folder is private
        (made 0700, or refused with the fix when others may write in it), neither the store
        nor its key file is followed through a symbolic link, a store is never empty when
        it appears (made aside, then linked into place), and an empty or corrupt one is an
        error naming the file, never silently a new store. The file is 0600 (it holds
        results); its digests are keyed by `idempotency.key` beside it."""
        import sqlite3
        path = self.path
        _private_folder(os.path.dirname(path) or ".")
        existed = os.path.lexists(path)   # before the key: a store made after it uses it
        self.secret, new_secret = _secret(os.path.splitext(path)[0] + ".key")
        _create(path)
        try:
            handle = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise _unsafe(path, "is a symbolic link", f"remove the link {path}; burgee "
                              "makes the store itself") from None
            raise
        try:
            found = os.fstat(handle)
            if not stat.S_ISREG(found.st_mode):
                raise _unsafe(path, "is not a regular file", f"remove {path}")
            if found.st_size == 0:
                raise _refusal(f"the idempotency store {path} is empty (0 bytes), not a store",
                               f"remove {path} (its keys are forgotten: a retry runs again), "
                               "or restore it from a copy")
            if found.st_mode & 0o077:
                os.fchmod(handle, 0o600)
            connection = sqlite3.connect(path, timeout=30, isolation_level=None,
                                         check_same_thread=False)   # the lease renews: a thread
            now = os.lstat(path)
            if (now.st_dev, now.st_ino) != (found.st_dev, found.st_ino):
                connection.close()
                raise _unsafe(path, "was replaced while it was opened", "run the call again; "
                              "if it happens again, something else writes in that folder")
        finally:
            os.close(handle)
        for attempt in range(200):   # creating the table can race another process's first use
            try:
                connection.execute(_TABLE)
                if new_secret and existed:   # a store kept under a lost key: its digests
                    connection.execute(        # can never match (a store another first
                        "DELETE FROM claims WHERE digest LIKE 'h1:%'")   # caller made now can)
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
            def read():
                return connection.execute(
                    "SELECT digest, state, result, host, pidns, pid, started FROM claims "
                    "WHERE scope=? AND key=?", (scope, key)).fetchone()
            row = read()
            taken = takeable(row, digest, read)
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


def _unsafe(path, what, fix) -> Fail:
    return _refusal(f"the idempotency store {path} {what}; it is not used", fix)


def _private_folder(folder: str) -> None:
    """Make `folder` 0700 when it is not there; refuse it (naming the fix) when another user
    owns it or others may write in it (they could swap the store for a link)."""
    try:
        os.makedirs(os.path.dirname(os.path.abspath(folder)), exist_ok=True)
        os.mkdir(folder, 0o700)
        os.chmod(folder, 0o700)   # whatever the umask
        return
    except FileExistsError:
        pass
    found = os.stat(folder)
    if not stat.S_ISDIR(found.st_mode):
        raise _refusal(f"the idempotency store's folder {folder} is not a folder",
                       "set BURGEE_STATE_DIR to a folder of your own")
    if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
        raise _refusal(f"the idempotency store's folder {folder} belongs to another user",
                       "set BURGEE_STATE_DIR to a folder of your own")
    if found.st_mode & 0o022:
        raise _refusal(f"the idempotency store's folder {folder} can be written by others "
                       f"(mode {stat.S_IMODE(found.st_mode):o}), who could swap the store",
                       f"chmod go-w {folder} (or chmod 700 {folder}), or set BURGEE_STATE_DIR "
                       "to a private folder")


def _create(path: str) -> bool:
    """Make the store at `path` when it is not there, atomically (built aside, then linked
    into place: never an empty file another process could open); whether this call made it."""
    if os.path.lexists(path):
        return False
    import secrets
    import sqlite3
    aside = f"{path}.{os.getpid()}-{secrets.token_hex(4)}.new"
    try:
        os.close(os.open(aside, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        connection = sqlite3.connect(aside, isolation_level=None)
        try:
            connection.execute(_TABLE)
        finally:
            connection.close()
        os.link(aside, path)
        return True
    except FileExistsError:
        return False
    finally:
        for leftover in (aside, aside + "-journal"):
            try:
                os.unlink(leftover)
            except OSError:
                pass


def _secret(path: str) -> tuple:
    """(the store's HMAC key, whether it was made now): read from `path` (0600, not through a
    link), made there when it is not (written aside, then linked into place)."""
    import secrets
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        aside = f"{path}.{os.getpid()}-{secrets.token_hex(4)}.new"
        made = False
        try:
            handle = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                os.write(handle, secrets.token_hex(32).encode() + b"\n")
                os.fsync(handle)
            finally:
                os.close(handle)
            os.link(aside, path)
            made = True
        except FileExistsError:
            pass
        finally:
            try:
                os.unlink(aside)
            except OSError:
                pass
        return _secret(path)[0], made
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _unsafe(path, "(its key) is a symbolic link",
                          f"remove the link {path}; burgee makes the key itself") from None
        raise
    try:
        if os.fstat(handle).st_mode & 0o077:
            os.fchmod(handle, 0o600)
        text = os.read(handle, 256).strip()
    finally:
        os.close(handle)
    if len(text) != 64 or any(c not in b"0123456789abcdef" for c in text):
        raise _refusal(f"the idempotency store's key {path} is corrupt",
                       f"remove {path} and the store beside it (their keys are forgotten: a "
                       "retry runs again)")
    return bytes.fromhex(text.decode()), False


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
