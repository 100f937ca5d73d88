"""What stands in front of every HTTP server burgee runs: the bearer-token check and the
session bounds (the rules themselves: `workbench.runtime.serving`).

`guard(app, token)` wraps a whole ASGI app: every HTTP request on every path, whatever its
method, needs `Authorization: Bearer <token>` (compared in constant time) or gets 401 with
`WWW-Authenticate: Bearer` before the app sees it, so an unauthenticated request never
opens a session, reads a body or reaches a route. `bound_sessions(manager)` makes the SDK's
session manager close the oldest idle session when it is full, instead of refusing every
new client with 503 until an idle timeout.
"""

from __future__ import annotations

import hmac
import json
import logging
import math

logger = logging.getLogger("workbench.mcp")

_REALM = b'Bearer realm="burgee"'


class BearerGuard:
    """ASGI middleware: 401 for any HTTP request without the bearer token. See the module."""

    def __init__(self, app, token: str):
        self.app = app
        self._expected = token.encode("utf-8")

    def __getattr__(self, name):   # the wrapped app's attributes (router, state, ...)
        return getattr(self.app, name)

    def allowed(self, headers) -> bool:
        """Whether the raw ASGI `headers` carry `Authorization: Bearer <the token>`."""
        given = b""
        for key, value in headers:
            if key.lower() == b"authorization":
                given = value
                break
        scheme, _, credential = given.strip().partition(b" ")
        if scheme.lower() != b"bearer":
            credential = b""
        # compare_digest takes the same time wherever the first differing byte is
        return hmac.compare_digest(credential.strip(), self._expected)

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket") and not self.allowed(scope.get("headers", ())):
            await _unauthorized(scope, send)
            return
        await self.app(scope, receive, send)


async def _unauthorized(scope, send) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps({"error": "invalid_token",
                       "error_description": "send the header Authorization: Bearer <token>; "
                       "the server printed its token where it printed its address"}).encode()
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", _REALM + b', error="invalid_token"')]})
    await send({"type": "http.response.body", "body": body})


def guard(app, token: str | None):
    """`app` behind the bearer-token check; `app` itself when `token` is None (--no-auth)."""
    return app if token is None else BearerGuard(app, token)


MAX_BODY = 4 * 1024 * 1024
"""Bytes an HTTP request body may hold: the MCP SDK's limit (`DEFAULT_MAX_REQUEST_BODY_SIZE`,
`mcp.server.transport_security`), which answers a larger one with 413 before parsing it."""

TOO_LARGE = json.dumps({
    "jsonrpc": "2.0", "id": None,
    "error": {"code": -32600, "message": f"Invalid Request: the request body is over "
              f"{MAX_BODY // (1024 * 1024)} MiB, the server's limit; pass a large input as a "
              f"file path or a URL the command reads rather than inline"}},
    separators=(",", ":")).encode()
"""The body of that 413, as a JSON-RPC error (id null: the request was not read)."""


def json_rpc_errors(app):
    """`app` with its plain-text 413 (a body over `MAX_BODY`) answered as a JSON-RPC error, so
    a client reads why instead of failing to parse "Request body too large"."""
    async def answered(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        replaced, ended = False, False

        async def receiving():
            nonlocal ended
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body"):
                ended = True
            return message

        async def sending(message):
            nonlocal replaced
            if message["type"] == "http.response.start" and message.get("status") == 413:
                replaced = True
                if not ended:   # a client still sending would read a reset instead
                    await _drain(receive)
                await send({"type": "http.response.start", "status": 413,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(TOO_LARGE)).encode())]})
            elif replaced and message["type"] == "http.response.body":
                if not message.get("more_body"):
                    await send({"type": "http.response.body", "body": TOO_LARGE})
            else:
                await send(message)
        return await app(scope, receiving, sending)
    return answered


def bound_sessions(manager) -> bool:
    """Make the SDK's StreamableHTTPSessionManager evict, at its `max_sessions`, the session
    idle the longest (never one with a request or stream open). Returns False when this SDK's
    manager lacks what that needs: the SDK's own limit (503 when full) then applies."""
    admit = getattr(manager, "_admit_session", None)
    if admit is None or not isinstance(getattr(manager, "_server_instances", None), dict):
        return False

    def admit_evicting(requestor):
        limit = manager.max_sessions
        if limit is not None and len(manager._server_instances) >= limit:
            _evict_oldest_idle(manager)
        return admit(requestor)

    manager._admit_session = admit_evicting
    return True


def _idle_since(transport):
    """When `transport`'s session went idle (as its idle deadline), or None while it is live:
    a request or GET stream in flight, or no request finished yet."""
    scope = getattr(transport, "idle_scope", None)
    if scope is None or scope.cancel_called or getattr(transport, "_requests_in_flight", 1):
        return None
    deadline = scope.deadline
    return None if math.isinf(deadline) else deadline


def _evict_oldest_idle(manager) -> bool:
    """Close the session idle the longest; False when every session is live."""
    idle = [(since, sid, transport) for sid, transport in manager._server_instances.items()
            if (since := _idle_since(transport)) is not None]
    if not idle:
        return False
    _, sid, transport = min(idle, key=lambda item: item[0])
    manager._server_instances.pop(sid, None)
    getattr(manager, "_session_owners", {}).pop(sid, None)
    transport.idle_scope.cancel()   # its server task ends and terminates the transport
    logger.info("closed idle session %s to admit a new one", sid[:8])
    return True


_DRAIN_AT_MOST = 64 * 1024 * 1024
"""Bytes of an over-large body read and dropped before its 413 is sent (past it, the answer
goes out anyway and the client may see the connection reset)."""


async def _drain(receive) -> None:
    """Read the rest of the request body and drop it."""
    read = 0
    while read <= _DRAIN_AT_MOST:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body"):
            return
