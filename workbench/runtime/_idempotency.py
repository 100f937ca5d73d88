"""The idempotency entry point: the store `environ` selects, and the claim of one call's key.

It sits over both stores (`workbench.runtime._keys`, the rules and the SQLite file, and
`workbench.runtime._keys_pg`, PostgreSQL), so neither imports the other's way back up.
"""

from __future__ import annotations

import time

from workbench.declaration.model import Fail
from workbench.runtime._keys import (
    WAIT_FOR_PENDING, Claim, SQLiteStore, _refusal, holder, input_digest, lease_seconds,
    store_path,
)


def open_store(environ):
    """The store `environ` selects: PostgreSQL for BURGEE_IDEMPOTENCY_URL=postgresql://...,
    else the SQLite file (`store_path`). Fail (exit 7) naming the fix when it cannot be used."""
    url = environ.get("BURGEE_IDEMPOTENCY_URL")
    if not url:
        store = SQLiteStore(store_path(environ))
    elif url.split("://", 1)[0] in ("postgresql", "postgres"):
        from workbench.runtime._keys_pg import PostgresStore
        store = PostgresStore(url)
    else:
        from workbench.runtime._keys_pg import shown
        scheme = url.split("://", 1)[0] if "://" in url else None
        raise _refusal("BURGEE_IDEMPOTENCY_URL " + (f"names an unknown store: {scheme!r}"
                                                    if scheme else "is not a URL")
                       + f" ({shown(url)})",
                       "set it to postgresql://USER@HOST/DATABASE, or unset it for the SQLite "
                       "file under BURGEE_STATE_DIR")
    try:
        store.connect()
    except store.errors as error:
        raise store.unavailable(error) from None
    return store


def claim(program, command, request, environ) -> Claim:
    """Claim the key for this call, or return the stored result; Fail on a conflicting input,
    a live holder past the wait, or a store that cannot be used."""
    lease = lease_seconds(environ)
    store = open_store(environ)
    try:
        return _claim(store, program, command, request, lease)
    except store.errors as error:
        store.close()
        raise store.unavailable(error) from None
    except BaseException:
        store.close()
        raise


def _claim(store, program, command, request, lease) -> Claim:
    import json
    import secrets

    from workbench.runtime.envelope import safe_text
    key = request.extras["idempotency_key"]
    stored_key = safe_text(key)   # bytes that are not UTF-8 (argv) as escapes: stores want UTF-8
    scope = program.name + " " + " ".join(command.path)
    digest = input_digest(request, store.secret)
    legacy = input_digest(request)   # a row of a store from before keyed digests
    token = secrets.token_hex(8)
    me = holder()
    deadline = time.monotonic() + WAIT_FOR_PENDING
    while True:
        taken, row = store.attempt(scope, stored_key, digest, token, me, lease)
        if taken:
            return Claim(store, scope, stored_key, token, lease=lease)
        stored_digest, state, result = row[:3]
        if stored_digest not in (digest, legacy):
            raise Fail("idempotency_conflict",
                       f"idempotency key {key!r} was used with different input",
                       hint="use a new key for a different call, or repeat the first call "
                            "exactly", exit=5)
        if state == "done":
            doc = json.loads(result)
            doc.setdefault("meta", {})["replayed"] = True
            store.close()
            return Claim(None, scope, stored_key, token, replay=doc)
        if time.monotonic() > deadline:
            raise Fail("in_progress", f"a call with idempotency key {key!r} is still running",
                       hint="retry the same call later; it will return that call's result",
                       exit=6, retryable=True)
        time.sleep(0.05)
