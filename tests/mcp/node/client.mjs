// The second MCP client of tests/mcp.rs: the official TypeScript SDK.
//
//   node client.mjs stdio -- COMMAND ARGS...
//   node client.mjs http URL TOKEN
//
// Connects (initialize), lists the tools, calls the tool named by $MCP_CALL (default
// sessions_list) with the JSON arguments in $MCP_ARGUMENTS (default {}) — or each call of
// $MCP_CALLS, a JSON list of {"name", "arguments"}, in order (`calls`) — and prints
// {"server": ..., "capabilities": ..., "protocolVersion": ..., "offered": ..., "headerVersion": ..., "sessionId": ...,
// "methods": [...], "tools": [...], "call": {...}, "calls": [...]} as one line of JSON, or {"fatal": "..."}.
//
// The revision is read off the wire, as the SDK sent and received it: `offered` is the one
// its `initialize` asked for, `protocolVersion` the one the server's answer agreed on,
// `headerVersion` the one the HTTP transport then sends in `MCP-Protocol-Version`, and
// `methods` every request the client sent, in order.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

async function main(argv) {
  let transport;
  if (argv[0] === "stdio") {
    const command = argv.slice(argv.indexOf("--") + 1);
    transport = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
  } else if (argv[0] === "http") {
    const headers = argv[2] ? { Authorization: `Bearer ${argv[2]}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(argv[1]), { requestInit: { headers } });
  } else {
    throw new Error(`unknown transport ${argv[0]}`);
  }
  // Every message each way; the SDK chains the handler set before it connects.
  const wire = [];
  transport.onmessage = (message) => wire.push({ from: "server", message });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.push({ from: "client", message });
    return send(message, options);
  };
  const client = new Client({ name: "session-tools-test-node", version: "1.0.0" });
  await client.connect(transport);
  const initialize = wire.find((m) => m.from === "client" && m.message.method === "initialize");
  const agreed = initialize && wire.find((m) => m.from === "server" && m.message.id === initialize.message.id);
  const { tools } = await client.listTools();
  const planned = process.env.MCP_CALLS
    ? JSON.parse(process.env.MCP_CALLS)
    : [{ name: process.env.MCP_CALL || "sessions_list", arguments: JSON.parse(process.env.MCP_ARGUMENTS || "{}") }];
  const calls = [];
  for (const { name, arguments: args } of planned) {
    // The SDK checks a result's structuredContent against the tool's outputSchema itself
    // (a mismatch is an error here); a protocol error is recorded with its code.
    let result;
    try {
      result = await client.callTool({ name, arguments: args });
    } catch (e) {
      calls.push({ error: { code: e.code ?? null, message: String(e.message ?? e) } });
      continue;
    }
    calls.push({
      isError: Boolean(result.isError),
      structuredContent: result.structuredContent ?? null,
      text: (result.content || []).filter((c) => c.type === "text").map((c) => c.text),
    });
  }
  const output = {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities() ?? null,
    offered: initialize ? initialize.message.params.protocolVersion : null,
    protocolVersion: agreed && agreed.message.result ? agreed.message.result.protocolVersion : null,
    headerVersion: transport.protocolVersion ?? null,
    sessionId: transport.sessionId ?? null,
    methods: wire.filter((m) => m.from === "client" && m.message.method && m.message.id !== undefined).map((m) => m.message.method),
    tools,
    call: calls[0],
    calls,
  };
  await client.close();
  return output;
}

const timer = setTimeout(() => {
  console.log(JSON.stringify({ fatal: "timed out after 120 s" }));
  process.exit(3);
}, 120_000);
try {
  console.log(JSON.stringify(await main(process.argv.slice(2))));
} catch (e) {
  console.log(JSON.stringify({ fatal: String(e && e.stack ? e.stack : e) }));
}
clearTimeout(timer);
