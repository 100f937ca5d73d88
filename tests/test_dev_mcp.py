"""MCP while you edit: the SDK's own client over HTTP hears list_changed after an on-disk save,
broken saves keep the last good program served, hanging handlers are cut off, traffic is kept."""

import asyncio
import json
import contextlib
import textwrap

import pytest

from _mcp_helpers import authed
from conftest import save

from workbench.dev.engine import Workbench

pytestmark = pytest.mark.asyncio

APP = textwrap.dedent('''
    import time
    from workbench import Command, Option, Program

    def hello(ctx):
        return {"hello": ctx.options.name}

    def hang(ctx):
        time.sleep(120)

    def login(ctx):
        return {"user": ctx.options.user}

    program = Program(name="app", version="1.0.0", description="A test program", commands=[
        Command(name="hello", description="Say hello", effects="read_only",
                options={"name": Option(type="string", default="world", description="who")},
                examples=["app hello --name ada"], run=hello),
        Command(name="hang", description="Never returns", effects="read_only",
                examples=["app hang"], run=hang),
        Command(name="login", description="Log in", effects="idempotent",
                options={"user": Option(type="string", description="user name"),
                         "password": Option(type="string", sensitive=True,
                                            description="the password")},
                examples=["app login --user ada"], run=login),
        EXTRA
    ])
''')

BYE = ('Command(name="bye", description="Say bye", effects="read_only", run=hello, '
       'examples=["app bye"]),')


def source(extra: str = "") -> str:
    return APP.replace("EXTRA", extra)


class Listener:
    """Collects list_changed notifications a client hears (handshake era)."""

    def __init__(self):
        self.heard = asyncio.Event()
        self.count = 0

    async def __call__(self, message):
        name = type(message).__name__
        method = getattr(message, "method", None)
        if name == "ToolListChangedNotification" or method == "notifications/tools/list_changed":
            self.count += 1
            self.heard.set()


def states(bench):
    """An asyncio.Queue of states as the engine publishes them."""
    queue: asyncio.Queue = asyncio.Queue()
    bench.subscribe(lambda e: queue.put_nowait(e.data) if e.kind == "state" else None)
    return queue


async def next_state(queue, timeout=20):
    return await asyncio.wait_for(queue.get(), timeout)


async def tool_names(client):
    return sorted(tool.name for tool in (await client.list_tools()).tools)


@pytest.fixture
async def served(tmp_path):
    file = tmp_path / "app.py"
    file.write_text(source(), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=2.0, call_timeout=2.0)
    url = await bench.start()
    try:
        yield bench, url, file
    finally:
        await bench.stop()


async def test_an_http_client_hears_list_changed_and_sees_the_new_tool(served):
    from mcp import Client
    bench, url, file = served
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    listener = Listener()
    async with Client(authed(url, bench.token), mode="legacy", message_handler=listener,
                      cache=None) as client:
        assert await tool_names(client) == ["hang", "hello", "login"]
        save(file, source(BYE))
        await asyncio.wait_for(listener.heard.wait(), 20)
        assert await tool_names(client) == ["bye", "hang", "hello", "login"]


async def test_a_2026_era_client_hears_it_on_its_listen_stream(served):
    from mcp import Client
    bench, url, file = served
    async with Client(authed(url, bench.token), cache=None) as client:
        assert client.protocol_version >= "2026"
        async with client.listen(tools_list_changed=True) as subscription:
            save(file, source(BYE))

            async def first_event():
                async for event in subscription:
                    return event
            event = await asyncio.wait_for(first_event(), 20)
            assert "ToolsListChanged" in type(event).__name__ or "tools" in repr(event).lower()
        assert "bye" in await tool_names(client)


@pytest.mark.parametrize("broken, kind", [
    ("def broken(:\n", "syntax_error"),
    ("raise RuntimeError('boom at import')\n", "import_failed"),
    ("import time\nwhile True:\n    time.sleep(0.1)\n", "timeout"),
])
@pytest.mark.slow
async def test_a_broken_save_keeps_the_last_good_program_served(served, broken, kind):
    from mcp import Client
    bench, url, file = served
    queue = states(bench)
    async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
        save(file, source() + "\n" + broken)
        state = await next_state(queue)
        assert state.load_error.code == kind and state.program is not None
        assert await tool_names(client) == ["hang", "hello", "login"]
        result = await client.call_tool("hello", {"name": "ada"})
        assert not result.is_error
        assert result.content[0].text == '{"ok":true,"data":{"hello":"ada"},"meta":' \
            + result.content[0].text.split(',"meta":', 1)[1]
        save(file, source(BYE))
        state = await next_state(queue)
        assert state.ok and state.changes.added == ("bye",)
        assert "bye" in await tool_names(client)


@pytest.mark.slow
async def test_a_hanging_handler_is_cut_off_and_the_next_call_works(served):
    from mcp import Client
    bench, url, file = served
    async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
        result = await client.call_tool("hang", {})
        assert result.is_error
        assert '"exit":7' in result.content[0].text and "did not finish" in result.content[0].text
        result = await client.call_tool("hello", {})
        assert not result.is_error and '"hello":"world"' in result.content[0].text


async def test_traffic_is_recorded_with_sensitive_values_hidden(served):
    from mcp import Client
    bench, url, file = served
    async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
        await client.list_tools()
        await client.call_tool("login", {"user": "ada", "password": "hunter2"})
    calls = [entry for entry in bench.traffic if entry.method == "tools/call"]
    assert calls and calls[-1].tool == "login"
    assert calls[-1].arguments == {"user": "ada", "password": "***"}
    assert "hunter2" not in repr(list(bench.traffic))
    assert any(entry.method == "tools/list" for entry in bench.traffic)


@pytest.mark.slow
async def test_chaos_100_saves_while_a_client_keeps_calling(tmp_path):
    """Alternate valid and broken saves while a client lists and calls; the list is never
    empty or broken, and the server never dies."""
    from mcp import Client
    file = tmp_path / "app.py"
    file.write_text(source(), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=2.0, call_timeout=5.0)
    loads = []
    bench.subscribe(lambda e: loads.append(e.data.ok) if e.kind == "state" else None)
    url = await bench.start()
    valid = [source(), source(BYE)]
    broken = [source() + "\ndef broken(:\n", source() + "\nraise ValueError('no')\n"]
    seen_lists, failures = [], []
    done = asyncio.Event()
    try:
        async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
            async def keep_calling():
                i = 0
                while not done.is_set():
                    names = await tool_names(client)
                    seen_lists.append(names)
                    if i % 5 == 0:
                        result = await client.call_tool("hello", {"name": str(i)})
                        if result.is_error:
                            failures.append(result.content[0].text)
                    i += 1
            caller = asyncio.create_task(keep_calling())
            for i in range(100):
                save(file, valid[(i // 2) % 2] if i % 2 == 0 else broken[(i // 2) % 2])
                await asyncio.sleep(0.03)
            # Saves 30 ms apart coalesce under the debounce, so which of them got loaded
            # depends on the machine's load; end on a broken one that surely loads, while the
            # client keeps calling, then on a good one.
            save(file, broken[0])
            deadline = asyncio.get_running_loop().time() + 20
            while loads.count(False) < 1:
                assert asyncio.get_running_loop().time() < deadline, "no broken save was loaded"
                await asyncio.sleep(0.05)
            save(file, source(BYE))
            deadline = asyncio.get_running_loop().time() + 20
            while await tool_names(client) != ["bye", "hang", "hello", "login"]:
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.05)
            done.set()
            await asyncio.wait_for(caller, 30)
            assert (await client.call_tool("hello", {})).is_error is False
    finally:
        await bench.stop()
    assert len(seen_lists) > 10
    assert loads.count(False) >= 1 and loads.count(True) >= 3   # both kinds were loaded
    assert all(names in (["hang", "hello", "login"], ["bye", "hang", "hello", "login"])
               for names in seen_lists), {tuple(n) for n in seen_lists}
    assert failures == []


async def test_a_file_broken_at_start_serves_no_tools_until_it_loads(tmp_path):
    from mcp import Client
    file = tmp_path / "app.py"
    file.write_text("def broken(:\n", encoding="utf-8")
    bench = Workbench(str(file), load_timeout=2.0)
    queue = states(bench)
    url = await bench.start()
    try:
        assert (await next_state(queue)).load_error.code == "syntax_error"
        listener = Listener()
        async with Client(authed(url, bench.token), mode="legacy", message_handler=listener,
                          cache=None) as client:
            assert await tool_names(client) == []
            save(file, source())
            await asyncio.wait_for(listener.heard.wait(), 20)
            assert await tool_names(client) == ["hang", "hello", "login"]
    finally:
        await bench.stop()


@pytest.mark.parametrize("sample", ["deploy.py", "notes.py"])
@pytest.mark.slow
async def test_the_dev_server_gives_the_same_tools_and_bytes_as_tool_mcp(sample, tmp_path,
                                                                          monkeypatch):
    """The dev server (subprocess calls, swappable program) against `python FILE mcp --http`."""
    from mcp import Client

    from _mcp_helpers import SAMPLES, caller_env, http_server
    from workbench.dev.inputs import SAFE_EFFECTS, example_argv
    from workbench.dev.inputs import arguments_from_argv
    for key, value in caller_env(tmp_path / "dev").items():
        monkeypatch.setenv(key, value)
    bench = Workbench(str(SAMPLES / sample), load_timeout=10.0, call_timeout=20.0)
    dev_url = await bench.start(watch=False)
    try:
        program = bench.program
        calls = []
        for command in program.walk():
            if command.effects in SAFE_EFFECTS:
                for example in command.examples:
                    _, arguments = arguments_from_argv(program, example_argv(program, example))
                    calls.append((command.tool_name, arguments))
        assert calls
        with http_server(SAMPLES / sample, caller_env(tmp_path / "plain"), tmp_path) as (url, _):
            async with Client(authed(dev_url, bench.token), mode="legacy", cache=None) as dev, \
                    Client(authed(url), mode="legacy", cache=None) as plain:
                dev_tools = (await dev.list_tools()).model_dump(by_alias=True, exclude_none=True)
                plain_tools = (await plain.list_tools()).model_dump(by_alias=True,
                                                                    exclude_none=True)
                assert dev_tools == plain_tools
                for name, arguments in calls:
                    a = await dev.call_tool(name, arguments)
                    b = await plain.call_tool(name, arguments)
                    assert a.content[0].text == b.content[0].text, (name, arguments)
                    assert a.is_error == b.is_error and a.structured_content == b.structured_content
    finally:
        await bench.stop()


async def test_progress_from_a_subprocess_call_reaches_the_client(tmp_path):
    """ctx.progress in the handler's subprocess goes out as progress notifications, live."""
    from mcp import Client
    file = tmp_path / "app.py"
    file.write_text(textwrap.dedent('''
        from workbench import Command, Program

        def count(ctx):
            for n in range(1, 4):
                ctx.progress(n, 3, f"step {n}")
                yield n

        program = Program(name="app", version="1.0.0", description="Progress", commands=[
            Command(name="count", description="Count to three", effects="read_only",
                    examples=["app count"], run=count)])
    '''), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=5.0, call_timeout=20.0)
    heard = []

    async def on_progress(progress, total, message):
        heard.append((progress, total, message))

    url = await bench.start(watch=False)
    try:
        async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
            result = await client.call_tool("count", {}, progress_callback=on_progress)
            deadline = asyncio.get_running_loop().time() + 20
            while not heard or heard[-1][0] < 3.0:   # notifications race the result
                assert asyncio.get_running_loop().time() < deadline, heard
                await asyncio.sleep(0.02)
    finally:
        await bench.stop()
    assert result.is_error is False
    assert heard[0] == (1.0, 3.0, "step 1") and heard[-1] == (3.0, 3.0, "step 3")


async def test_the_dev_server_wants_its_bearer_token_on_every_route(served):
    import httpx2
    from mcp import Client
    bench, url, file = served
    assert bench.token and bench.policy.token_source in ("random", "env")
    root = url.rsplit("/mcp", 1)[0]
    async with httpx2.AsyncClient(timeout=30) as http:
        for method, where in [("POST", url), ("GET", url), ("GET", root + "/elsewhere")]:
            answer = await http.request(method, where, headers={"Accept": "text/event-stream"})
            assert answer.status_code == 401 and answer.headers["www-authenticate"]
        wrong = await http.post(url, headers={"Authorization": "Bearer " + "z" * 43})
        assert wrong.status_code == 401
    copied = bench.client_config("claude-code")
    assert copied.endswith(f"--header 'Authorization: Bearer {bench.token}'")
    async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
        assert "hello" in await tool_names(client)


def _record_state_builds(bench, monkeypatch, record) -> None:
    """Call `record()` each time the bench starts building a State."""
    build = bench._next_state
    monkeypatch.setattr(bench, "_next_state", lambda loaded: record() or build(loaded))


@contextlib.asynccontextmanager
async def _told_of_a_save(bench, url, file):
    """A client that listed the tools, then a save (BYE) it has heard `list_changed` for;
    yields (client, the bench's State queue)."""
    from mcp import Client
    queue = states(bench)
    listener = Listener()
    async with Client(authed(url, bench.token), mode="legacy", message_handler=listener,
                      cache=None) as client:
        await tool_names(client)
        save(file, source(BYE))
        await asyncio.wait_for(listener.heard.wait(), 20)
        yield client, queue


async def test_clients_told_of_a_save_list_before_the_surfaces_are_built(served, monkeypatch):
    """Agents first: the state build (every surface, tokens, lint) waits until the clients
    told of the change have listed again, so it does not share the GIL with their answer."""
    from workbench.dev import engine
    bench, url, file = served
    monkeypatch.setattr(engine, "AGENTS_FIRST_SECONDS", 60.0)
    order, waiting = [], asyncio.Event()
    _record_state_builds(bench, monkeypatch, lambda: order.append("state"))
    wait = bench.server.told_clients_listed

    async def recorded(timeout):
        waiting.set()
        listed = await wait(timeout)
        order.append(("listed", listed))
        return listed
    monkeypatch.setattr(bench.server, "told_clients_listed", recorded)
    async with _told_of_a_save(bench, url, file) as (client, queue):
        await asyncio.wait_for(waiting.wait(), 20)   # told, not yet listed: the state waits
        assert order == []
        names = await tool_names(client)
        state = await next_state(queue)      # built once the client listed
    assert "bye" in names and state.ok and state.program.tool("bye") is not None
    assert order == [("listed", True), "state"]     # the listing ended the wait, not the 60 s


@pytest.mark.slow
async def test_the_state_waits_until_the_listing_answer_is_sent(tmp_path, monkeypatch):
    """The listing a told client asked for is encoded and sent on the event loop (about
    10 ms at 1,000 tools): the state build waits until its last bytes are sent, not only
    until the handler returned. Here every answer's last bytes leave 0.4 s late."""
    import time

    from workbench.dev import engine
    from workbench.mcp.server import ProgramServer
    monkeypatch.setattr(engine, "AGENTS_FIRST_SECONDS", 60.0)
    ended: list = []
    counting = ProgramServer._counting_listings

    def late(self, app):
        async def slowed(scope, receive, send):
            async def send_late(message):
                if message.get("type") == "http.response.body" and not message.get("more_body"):
                    await asyncio.sleep(0.4)
                await send(message)
            try:
                return await app(scope, receive, send_late)
            finally:
                ended.append(time.monotonic())
        return counting(self, slowed)
    monkeypatch.setattr(ProgramServer, "_counting_listings", late)
    file = tmp_path / "app.py"
    file.write_text(source(), encoding="utf-8")
    bench = Workbench(str(file), load_timeout=2.0, call_timeout=2.0)
    url = await bench.start()
    try:
        started = []
        _record_state_builds(bench, monkeypatch, lambda: started.append(time.monotonic()))
        async with _told_of_a_save(bench, url, file) as (client, queue):
            listed_from = len(ended)
            assert "bye" in await tool_names(client)     # its answer ended 0.4 s late
            state = await next_state(queue)
        assert state.ok and len(started) == 1
        assert started[0] >= min(ended[listed_from:])    # after the answer was sent
    finally:
        await bench.stop()


async def test_a_told_client_that_never_lists_delays_the_state_only_briefly(served, monkeypatch):
    from mcp import Client

    from workbench.dev import engine
    bench, url, file = served
    monkeypatch.setattr(engine, "AGENTS_FIRST_SECONDS", 0.2)
    queue = states(bench)
    listener = Listener()
    async with Client(authed(url, bench.token), mode="legacy", message_handler=listener,
                      cache=None) as client:
        await tool_names(client)
        save(file, source(BYE))
        await asyncio.wait_for(listener.heard.wait(), 20)
        state = await next_state(queue)      # built after 0.2 s without a listing
        assert state.ok and state.program.tool("bye") is not None


@pytest.mark.slow
async def test_a_tool_list_over_the_page_size_comes_in_pages_a_client_follows(served,
                                                                              monkeypatch):
    """The MCP SDK's Python client refuses a server-sent event over 1 MiB, and 5,000 commands
    list 3.6 MB: a long list comes in pages linked by nextCursor (here, a tiny page size)."""
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from workbench.mcp import server as mcp_server
    bench, url, file = served
    async with Client(authed(url, bench.token), mode="legacy", cache=None) as client:
        whole = await client.list_tools()
        assert whole.next_cursor is None
        monkeypatch.setattr(mcp_server, "LIST_PAGE_BYTES", 400)
        bench.server.core._listings = []       # computed again at the new size
        pages = [await client.list_tools()]
        while pages[-1].next_cursor:
            pages.append(await client.list_tools(cursor=pages[-1].next_cursor))
        assert len(pages) >= 2
        assert [tool.name for page in pages for tool in page.tools] == \
            [tool.name for tool in whole.tools]
        queue = states(bench)
        save(file, source(BYE))                 # the list changes: an old cursor is refused
        assert (await next_state(queue, 60)).program.tool("bye") is not None
        with pytest.raises(MCPError, match="list again without a cursor"):
            await client.list_tools(cursor=pages[0].next_cursor)



@pytest.mark.slow
async def test_a_save_that_changes_no_tool_sends_no_list_changed(served):
    """A reload whose tools/list is the same (a handler's body, a comment) tells nobody; the
    next save that adds a tool does: the client hears exactly one notification."""
    from mcp import Client
    bench, url, file = served
    queue = states(bench)
    listener = Listener()
    async with Client(authed(url, bench.token), mode="legacy", message_handler=listener,
                      cache=None) as client:
        await tool_names(client)
        save(file, source().replace('return {"hello": ctx.options.name}',
                                    'return {"hello": ctx.options.name.upper()}') + "# saved\n")
        state = await next_state(queue)
        assert state.ok and state.generation >= 2
        save(file, source(BYE))
        await asyncio.wait_for(listener.heard.wait(), 20)
        assert listener.count == 1
        assert "bye" in await tool_names(client)


async def test_resources_follow_a_save_with_list_changed(served):
    """The program's cards are MCP resources (issue 33, item 5): a save that adds a command
    tells the client resources/list_changed, and the new card can be read."""
    from mcp import Client
    bench, url, file = served
    heard = asyncio.Event()

    async def listener(message):
        if getattr(message, "method", None) == "notifications/resources/list_changed" or \
                type(message).__name__ == "ResourceListChangedNotification":
            heard.set()
    async with Client(authed(url, bench.token), mode="legacy", message_handler=listener,
                      cache=None) as client:
        before = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "burgee://app/cards/hello" in before and "burgee://app/cards/bye" not in before
        save(file, source(BYE))
        await asyncio.wait_for(heard.wait(), 20)
        after = {str(r.uri) for r in (await client.list_resources()).resources}
        assert after - before == {"burgee://app/cards/bye"}
        card = await client.read_resource("burgee://app/cards/bye")
        assert json.loads(card.contents[0].text)["description"] == "Say bye"
