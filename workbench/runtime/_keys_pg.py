"""The PostgreSQL idempotency store (`BURGEE_IDEMPOTENCY_URL=postgresql://...`): keys shared by
every worker and machine that points at one database.

Same interface and rules as the SQLite store (`workbench.runtime._keys`): a claim is one
transaction serialised per key by a transaction-scoped advisory lock; times come from the
server's clock, so leases and expiry do not depend on the callers' clocks agreeing. psycopg 3
(`pip install 'burgee[postgres]'`) is imported only here, only when the URL is set.
Connections are kept per process (a small idle pool) so a server's calls do not reconnect.
"""

from __future__ import annotations

import threading

from workbench.declaration.model import Fail
from workbench.runtime._keys import COLUMNS, _refusal, takeable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TABLE = "burgee_idempotency"
_CREATE = (f"CREATE TABLE IF NOT EXISTS {TABLE} (scope text, key text, digest text, "
           "state text, result text, exit integer, created double precision, "
           "expires double precision, token text, host text, pidns text, pid integer, "
           "started text, PRIMARY KEY (scope, key))")
_KEY_TABLE = "burgee_idempotency_key"
"""The store's HMAC key (one row), apart from the claims: a copy of the claims table alone
cannot be searched for inputs that held a secret."""
_NOW = "extract(epoch from clock_timestamp())::double precision"
_IDLE: dict[str, list] = {}     # url -> idle connections of this process
_READY: dict[str, bytes] = {}   # url -> its key, once this process has made sure of its tables
_LOCK = threading.Lock()
_KEEP = 8                       # idle connections kept per url


def shown(url: str) -> str:
    """The URL (or keyword DSN) with every password in it as `***`, for messages: in the
    user part (`user:PASSWORD@`), as a query parameter (`?password=`) and as a keyword
    (`password=... ` or `password='...'`)."""
    return _masked(url, url)


def passwords(url: str) -> list:
    """Every password `url` holds, as written and percent-decoded (a message may quote
    either)."""
    from urllib.parse import parse_qsl, unquote, urlsplit
    found = []
    head, sep, tail = url.partition("://")
    if sep:
        netloc = tail.split("/", 1)[0].split("?", 1)[0]
        user = netloc.rpartition("@")[0] if "@" in netloc else ""
        if ":" in user:
            found.append(user.split(":", 1)[1])
        try:
            query = urlsplit(url).query
        except ValueError:
            query = tail.partition("?")[2]
        for part in query.split("&"):
            name, eq, value = part.partition("=")
            if eq and unquote(name).strip().lower() == "password":
                found.append(value)
        try:
            found += [value for name, value in parse_qsl(query) if name.lower() == "password"]
        except ValueError:
            pass
    else:
        found += _keyword_passwords(url)
    return [each for each in dict.fromkeys(form for item in found
                                           for form in (item, unquote(item))) if each]


def _keyword_passwords(text: str) -> list:
    """The values of `password=` in a keyword DSN (`host=db password='a b' dbname=x`)."""
    found: list = []
    at = 0
    lowered = text.lower()
    while True:
        at = lowered.find("password", at)
        if at == -1:
            return found
        rest = text[at + 8:].lstrip()
        at += 8
        if not rest.startswith("="):
            continue
        rest = rest[1:].lstrip()
        if rest.startswith("'"):
            value, escaped, end = "", False, len(rest)
            for index, char in enumerate(rest[1:], 1):
                if escaped:
                    value, escaped = value + char, False
                elif char == "\\":
                    escaped = True
                elif char == "'":
                    end = index + 1
                    break
                else:
                    value += char
            found += [rest[:end], value]
        else:
            found.append(rest.split(None, 1)[0] if rest.split() else "")


def _masked(text: str, url: str) -> str:
    """`text` with the passwords of `url` replaced by `***` (whatever their length)."""
    for password in sorted(passwords(url), key=len, reverse=True):
        text = text.replace(password, "***")
    return text


def _psycopg():
    """psycopg, or the `missing_extra` Fail naming pip install 'burgee[postgres]'."""
    try:
        import psycopg
    except ImportError:
        from workbench.runtime.extras import missing_extra
        raise missing_extra("postgres", "BURGEE_IDEMPOTENCY_URL=postgresql://... (the "
                            "PostgreSQL idempotency store)", ["psycopg"]) from None
    return psycopg


class PostgresStore:
    """Idempotency keys in the table `burgee_idempotency` of the database at `url`."""

    def __init__(self, url: str):
        self.url = url
        self.psycopg = _psycopg()
        self.errors = (self.psycopg.Error, OSError)
        self.connection: Any = None
        self.secret: bytes | None = None   # the HMAC key of the digests (`_KEY_TABLE`)

    def unavailable(self, error) -> Fail:
        reason = _masked(str(error).strip(), self.url) or type(error).__name__
        return _refusal(f"the idempotency store {shown(self.url)} cannot be used: {reason}",
                        "start that PostgreSQL server or fix BURGEE_IDEMPOTENCY_URL (user, "
                        "password, host, database; the user needs CREATE on the first use), or "
                        "unset it for the SQLite file under BURGEE_STATE_DIR")

    def connect(self) -> None:
        with _LOCK:
            idle = _IDLE.get(self.url)
            connection = idle.pop() if idle else None
        if connection is not None and not connection.closed:
            self.connection, self.secret = connection, _READY[self.url]
            return
        connection = self.psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        # a claim reads its row again after a liveness check (`takeable`): it must see what
        # was committed meanwhile, whatever the server's default isolation
        connection.isolation_level = self.psycopg.IsolationLevel.READ_COMMITTED
        if self.url not in _READY:
            import secrets
            with connection.transaction():   # concurrent CREATE TABLE IF NOT EXISTS can fail
                connection.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (TABLE,))
                connection.execute(_CREATE)
                connection.execute(f"CREATE TABLE IF NOT EXISTS {_KEY_TABLE} "
                                   "(id integer PRIMARY KEY, secret text NOT NULL)")
                connection.execute(f"INSERT INTO {_KEY_TABLE} VALUES (1, %s) ON CONFLICT "
                                   "DO NOTHING", (secrets.token_hex(32),))
                secret = connection.execute(f"SELECT secret FROM {_KEY_TABLE} WHERE id = 1"
                                            ).fetchone()[0]
            _READY[self.url] = bytes.fromhex(secret)
        self.connection, self.secret = connection, _READY[self.url]

    def attempt(self, scope, key, digest, token, holder, lease):
        connection = self.connection
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                               (scope + "\n" + key,))
            connection.execute(f"DELETE FROM {TABLE} WHERE scope=%s AND key=%s AND expires < "
                               f"{_NOW}", (scope, key))
            connection.execute(   # some other expired keys, never waiting on a busy row
                f"DELETE FROM {TABLE} WHERE ctid IN (SELECT ctid FROM {TABLE} WHERE expires < "
                f"{_NOW} LIMIT 20 FOR UPDATE SKIP LOCKED)")
            def read():   # each statement sees what was committed before it (READ COMMITTED)
                return connection.execute(
                    f"SELECT digest, state, result, host, pidns, pid, started FROM {TABLE} "
                    "WHERE scope=%s AND key=%s", (scope, key)).fetchone()
            row = read()
            taken = takeable(row, digest, read)
            if taken:
                names = ", ".join(COLUMNS)
                connection.execute(
                    f"INSERT INTO {TABLE} ({names}) VALUES (%s, %s, %s, 'pending', NULL, NULL, "
                    f"{_NOW}, {_NOW} + %s, %s, %s, %s, %s, %s) ON CONFLICT (scope, key) DO "
                    "UPDATE SET " + ", ".join(f"{c}=excluded.{c}" for c in COLUMNS[2:]),
                    (scope, key, digest, lease, token, *holder))
        return taken, row

    def renew(self, scope, key, token, lease) -> bool:
        cursor = self.connection.execute(
            f"UPDATE {TABLE} SET expires={_NOW} + %s WHERE scope=%s AND key=%s AND token=%s "
            "AND state='pending'", (lease, scope, key, token))
        return cursor.rowcount == 1

    def finish(self, scope, key, token, result, exit_code, ttl) -> None:
        self.connection.execute(
            f"UPDATE {TABLE} SET state='done', result=%s, exit=%s, expires={_NOW} + %s WHERE "
            "scope=%s AND key=%s AND token=%s", (result, exit_code, ttl, scope, key, token))

    def release(self, scope, key, token) -> None:
        self.connection.execute(f"DELETE FROM {TABLE} WHERE scope=%s AND key=%s AND token=%s "
                                "AND state='pending'", (scope, key, token))

    def close(self) -> None:
        """Hand the connection back to this process's idle pool (closed if broken or full)."""
        connection, self.connection = self.connection, None
        if connection is None or connection.closed:
            return
        idle_state = self.psycopg.pq.TransactionStatus.IDLE
        with _LOCK:
            idle = _IDLE.setdefault(self.url, [])
            if connection.info.transaction_status == idle_state and len(idle) < _KEEP:
                idle.append(connection)
                return
        connection.close()
