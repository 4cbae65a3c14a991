"""A real MCP client (the Python `mcp` SDK) driving `session-tools mcp` for tests/mcp.rs.

    python client.py stdio -- COMMAND ARGS...      # starts the server, talks over its stdio
    python client.py http URL TOKEN                 # streamable HTTP with a bearer token

Reads a plan (a JSON list of steps) on stdin, runs it in one session after `initialize`,
and prints one JSON object on stdout:

    {"initialize": {...}, "results": [...]}      or      {"fatal": "what went wrong"}

Steps:
    {"op": "list"}                                   -> {"tools": [...]} (as on the wire)
    {"op": "call", "tool": T, "arguments": {...}}    -> {"isError", "structuredContent", "text"}
                                                        or {"error": {"code", "message"}}
    {"op": "until", "tool": T, "arguments": {...}, "contains": S, "seconds": N}
        calls T every 0.2 s until its text contains S (or N seconds pass): the last answer,
        with "matched": true|false
    {"op": "sleep", "seconds": N}                    -> {} after N seconds (the session idles)

Every result also carries "seconds": how long its step took (and the output
"initializeSeconds"), for the tests that bound how long a client waits.
"""

import json
import sys
import time
import traceback

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

TIMEOUT = 120


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


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


async def run_plan(session, plan):
    started = time.monotonic()
    init = await session.initialize()
    initialize_seconds = time.monotonic() - started
    results = []
    for step in plan:
        started = time.monotonic()
        await run_step(session, step, results)
        results[-1]["seconds"] = time.monotonic() - started
    return {"initialize": dump(init), "initializeSeconds": initialize_seconds, "results": results}


async def run_step(session, step, results):
    op = step["op"]
    if op == "list":
        listed = await session.list_tools()
        results.append({"tools": [dump(t) for t in listed.tools]})
    elif op == "call":
        results.append(await call(session, step["tool"], step.get("arguments", {})))
    elif op == "until":
        deadline = time.monotonic() + step.get("seconds", 30)
        while True:
            answer = await call(session, step["tool"], step.get("arguments", {}))
            matched = step["contains"] in json.dumps(answer)
            if matched or time.monotonic() > deadline:
                answer["matched"] = matched
                results.append(answer)
                break
            await anyio.sleep(0.2)
    elif op == "sleep":
        await anyio.sleep(step["seconds"])
        results.append({})
    else:
        raise ValueError(f"unknown step {op!r}")


async def main(argv):
    plan = json.load(sys.stdin)
    with anyio.fail_after(TIMEOUT):
        if argv[0] == "stdio":
            command = argv[argv.index("--") + 1 :]
            params = StdioServerParameters(command=command[0], args=command[1:])
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
                    return await run_plan(session, plan)
        elif argv[0] == "http":
            url, token = argv[1], argv[2]
            headers = {"Authorization": f"Bearer {token}"} if token else None
            async with create_mcp_http_client(headers=headers) as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
                        return await run_plan(session, plan)
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
