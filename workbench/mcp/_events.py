"""The SSE event store of an HTTP server: what makes a dropped stream resumable.

With a store, the SDK's streamable HTTP transport sends a priming event (an id and `retry:`)
before anything else on a stream, numbers every event, and answers a client that reconnects
with `Last-Event-ID` by replaying what came after it (`replay_events_after`). The events live
in this process only, bounded by count and by bytes (oldest dropped first): a client that
comes back after its events were dropped starts over, as without a store. A stateless server
(`workbench.mcp.asgi` across workers) keeps none: another worker could not replay them.
"""

from __future__ import annotations

import collections
import secrets

from mcp.server.streamable_http import EventMessage, EventStore

MAX_EVENTS = 2000
"""Events kept at most (the oldest dropped first)."""
MAX_BYTES = 32 * 1024 * 1024
"""Bytes of kept events at most (a result can be 1 MiB; the oldest dropped first)."""
RETRY_MS = 1000
"""Milliseconds a client waits before reconnecting a dropped stream (the `retry:` field)."""


class MemoryEventStore(EventStore):
    """Events of this server process, in order; ids are unique to it (a random prefix), so an
    id from another process or an earlier start replays nothing rather than the wrong thing."""

    def __init__(self, max_events: int = MAX_EVENTS, max_bytes: int = MAX_BYTES):
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._prefix = secrets.token_hex(4)
        self._serial = 0
        self._events: collections.OrderedDict = collections.OrderedDict()  # id -> (stream, message, size)
        self._bytes = 0

    async def store_event(self, stream_id, message):
        self._serial += 1
        event_id = f"{self._prefix}-{self._serial}"
        size = 0 if message is None else len(message.model_dump_json(by_alias=True,
                                                                     exclude_unset=True))
        self._events[event_id] = (stream_id, message, size)
        self._bytes += size
        while self._events and (len(self._events) > self.max_events
                                or self._bytes > self.max_bytes):
            _, (_, _, dropped) = self._events.popitem(last=False)
            self._bytes -= dropped
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        kept = self._events.get(last_event_id)
        if kept is None:
            return None
        stream_id, after = kept[0], False
        for event_id, (stream, message, _) in list(self._events.items()):
            if after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream_id
