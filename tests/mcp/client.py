"""A real MCP client (the Python `mcp` SDK) driving `session-tools mcp` for tests/mcp.rs.

    python client.py [--mode MODE] stdio -- COMMAND ARGS...   # starts the server, talks over its stdio
    python client.py [--mode MODE] http URL TOKEN              # streamable HTTP with a bearer token

MODE is how the SDK agrees on a protocol revision with the server:
    legacy (the default)   `initialize`, then a session: the SDK offers its newest
                           session-based revision (2025-11-25)
    auto                   the SDK's own default (`mcp.Client`): `server/discover` first, and
                           the newest stateless revision both speak (2026-07-28), no session;
                           `initialize` only if the server does not answer discover
    2026-07-28             that stateless revision, without asking first

Reads a plan (a JSON list of steps) on stdin, runs it on one connection, and prints one
JSON object on stdout:

    {"protocolVersion": "...", "initialize": {...} | null, "discover": {...} | null,
     "results": [...]}                                  or      {"fatal": "what went wrong"}

`protocolVersion` is the revision the SDK agreed on; `initialize` or `discover` is the
server's answer to the handshake the SDK made, as on the wire.

Steps:
    {"op": "list"}                                   -> {"tools": [...]} (as on the wire)
    {"op": "call", "tool": T, "arguments": {...}}    -> {"isError", "structuredContent", "text"}
                                                        or {"error": {"code", "message"}}
    {"op": "until", "tool": T, "arguments": {...}, "contains": S, "seconds": N}
        calls T every 0.2 s until its text contains S (or N seconds pass): the last answer,
        with "matched": true|false
    {"op": "sleep", "seconds": N}                    -> {} after N seconds (the connection idles)
    {"op": "cancel", "tool": T, "arguments": {...}}
        calls T asking for progress and gives up on the call (the SDK cancels it the way its
        revision and transport say) as soon as the first progress arrives:
        {"progress": [{"progress", "total", "message"}], "answered": false}
    {"op": "metrics", "url": U, "token": M, "contains": S, "seconds": N}
        GETs the metrics page U (plain HTTP, bearer M) until its text contains S:
        {"matched", "sinceCancel": seconds since the last cancel gave up, "text"}

Every result also carries "seconds": how long its step took (and the output
"initializeSeconds": how long the handshake took), for the tests that bound how long a
client waits.
"""

import json
import sys
import time
import traceback

import anyio
import httpx2
from mcp import Client, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

TIMEOUT = 120


def dump(model):
    return None if model is None else model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def call(session, tool, arguments):
    try:
        result = await session.call_tool(tool, arguments)
    except MCPError as e:
        return {"error": {"code": e.code, "message": e.message}}
    return {
        "isError": bool(result.is_error),
        "structuredContent": result.structured_content,
        "text": [c.text for c in result.content if getattr(c, "type", None) == "text"],
    }


class Plan:
    def __init__(self, session, steps):
        self.session = session
        self.steps = steps
        # When the last `cancel` step gave up on its call (monotonic seconds).
        self.cancelled_at = None

    async def run(self):
        results = []
        for step in self.steps:
            started = time.monotonic()
            results.append(await self.step(step))
            results[-1]["seconds"] = time.monotonic() - started
        return results

    async def step(self, step):
        session, op = self.session, step["op"]
        if op == "list":
            listed = await session.list_tools()
            return {"tools": [dump(t) for t in listed.tools]}
        if op == "call":
            return await call(session, step["tool"], step.get("arguments", {}))
        if op == "until":
            deadline = time.monotonic() + step.get("seconds", 30)
            while True:
                answer = await call(session, step["tool"], step.get("arguments", {}))
                matched = step["contains"] in json.dumps(answer)
                if matched or time.monotonic() > deadline:
                    answer["matched"] = matched
                    return answer
                await anyio.sleep(0.2)
        if op == "sleep":
            await anyio.sleep(step["seconds"])
            return {}
        if op == "cancel":
            return await self.cancel(step)
        if op == "metrics":
            return await self.metrics(step)
        raise ValueError(f"unknown step {op!r}")

    async def cancel(self, step):
        progress, first = [], anyio.Event()
        answered = []

        async def on_progress(value, total, message):
            progress.append({"progress": value, "total": total, "message": message})
            first.set()

        async def run_call():
            await self.session.call_tool(step["tool"], step.get("arguments", {}), progress_callback=on_progress)
            answered.append(True)
            first.set()

        async with anyio.create_task_group() as group:
            group.start_soon(run_call)
            await first.wait()
            # Giving up: the SDK sends `notifications/cancelled` or closes the answer's
            # stream, whichever its revision and transport call for.
            group.cancel_scope.cancel()
        self.cancelled_at = time.monotonic()
        return {"progress": progress, "answered": bool(answered)}

    async def metrics(self, step):
        deadline = time.monotonic() + step.get("seconds", 30)
        headers = {"Authorization": f"Bearer {step['token']}"}
        async with httpx2.AsyncClient(headers=headers) as http:
            while True:
                text = (await http.get(step["url"])).text
                matched = step["contains"] in text
                if matched or time.monotonic() > deadline:
                    since = None if self.cancelled_at is None else time.monotonic() - self.cancelled_at
                    return {"matched": matched, "sinceCancel": since, "text": text}
                # A poll of a page, not a wait for an event: the next look comes soon.
                await anyio.sleep(0.01)


async def legacy(read, write, steps):
    """`initialize`, then the plan in that session."""
    async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
        started = time.monotonic()
        init = await session.initialize()
        seconds = time.monotonic() - started
        results = await Plan(session, steps).run()
        return {
            "protocolVersion": session.protocol_version,
            "initialize": dump(init),
            "discover": None,
            "initializeSeconds": seconds,
            "results": results,
        }


async def negotiated(server, mode, steps):
    """The SDK's `Client`, agreeing on a revision by `mode`, then the plan."""
    started = time.monotonic()
    # No response cache: every step of the plan reaches the server.
    async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT, cache=None) as client:
        seconds = time.monotonic() - started
        session = client.session
        results = await Plan(session, steps).run()
        return {
            "protocolVersion": client.protocol_version,
            "initialize": dump(session.initialize_result),
            "discover": dump(session.discover_result),
            "initializeSeconds": seconds,
            "results": results,
        }


async def main(argv):
    mode = "legacy"
    if argv[0] == "--mode":
        mode, argv = argv[1], argv[2:]
    steps = json.load(sys.stdin)
    with anyio.fail_after(TIMEOUT):
        if argv[0] == "stdio":
            command = argv[argv.index("--") + 1 :]
            params = StdioServerParameters(command=command[0], args=command[1:])
            if mode == "legacy":
                async with stdio_client(params) as (read, write):
                    return await legacy(read, write, steps)
            return await negotiated(params, mode, steps)
        if argv[0] == "http":
            url, token = argv[1], argv[2]
            headers = {"Authorization": f"Bearer {token}"} if token else None
            async with create_mcp_http_client(headers=headers) as http:
                if mode == "legacy":
                    async with streamable_http_client(url, http_client=http) as (read, write):
                        return await legacy(read, write, steps)
                return await negotiated(streamable_http_client(url, http_client=http), mode, steps)
        raise ValueError(f"unknown transport {argv[0]!r}")


def describe(error):
    """An exception as text, also the ones an anyio task group wraps."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(e) for e in error.exceptions)
    return f"{type(error).__name__}: {error}"


if __name__ == "__main__":
    try:
        output = anyio.run(main, sys.argv[1:])
    except BaseException as e:  # noqa: BLE001 - everything is reported to the test
        output = {"fatal": describe(e), "traceback": traceback.format_exc()}
    print(json.dumps(output))
