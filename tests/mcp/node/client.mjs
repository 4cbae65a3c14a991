// The second MCP client of tests/mcp.rs: the official TypeScript SDK.
//
//   node client.mjs stdio -- COMMAND ARGS...
//   node client.mjs http URL TOKEN
//
// Connects (initialize), lists the tools, calls the tool named by $MCP_CALL (default
// sessions_list) with the JSON arguments in $MCP_ARGUMENTS (default {}), and prints
// {"server": ..., "protocolVersion": ..., "tools": [...], "call": {...}} as one line of
// JSON, or {"fatal": "..."}.
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
  const client = new Client({ name: "session-tools-test-node", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const result = await client.callTool({
    name: process.env.MCP_CALL || "sessions_list",
    arguments: JSON.parse(process.env.MCP_ARGUMENTS || "{}"),
  });
  const output = {
    server: client.getServerVersion(),
    tools,
    call: {
      isError: Boolean(result.isError),
      structuredContent: result.structuredContent ?? null,
      text: (result.content || []).filter((c) => c.type === "text").map((c) => c.text),
    },
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
