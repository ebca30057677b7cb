// An MCP host made of the official TypeScript SDK client, driven by a test: it starts the command
// given on its command line as a stdio MCP server (or connects to a Streamable HTTP endpoint with
// a bearer token), then reads one JSON command per line on stdin and writes one JSON event per
// line on stdout.
//
//   node sdkhost.mjs <program> [args...]
//   node sdkhost.mjs --http <url> <token>
//   {"op":"list","id":"l1"}                                 -> {"event":"tools","id":"l1","tools":[...],"pages":n}
//   {"op":"call","id":"c1","name":"demo__echo","arguments":{...},"progress":true}
//                                                           -> {"event":"progress","id":"c1",...}, then
//                                                              {"event":"result","id":"c1","result":{...}} or
//                                                              {"event":"rejected","id":"c1","code":n,"message":"..."}
//   {"op":"cancel","id":"c1"}                               aborts call c1 (the SDK sends notifications/cancelled)
//   {"op":"terminate"}                                      HTTP: ends the session (DELETE) -> {"event":"terminated"}
//   {"op":"close"}                                          -> {"event":"closed"}, and the process exits
// Unprompted: {"event":"connected",...}, {"event":"list_changed"}, {"event":"stderr","line":"..."} (the
// server's stderr), {"event":"client_error","message":"..."}, {"event":"transport_closed"}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import readline from 'node:readline';

const [program, ...args] = process.argv.slice(2);
const out = (event) => process.stdout.write(JSON.stringify(event) + '\n');

let transport;
if (program === '--http') {
  const [url, token] = args;
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  transport = new StdioClientTransport({ command: program, args, env: process.env, stderr: 'pipe' });
  readline.createInterface({ input: transport.stderr }).on('line', (line) => out({ event: 'stderr', line }));
}

const client = new Client({ name: 'tether-test-host', version: '1.0.0' });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => out({ event: 'list_changed' }));
client.onerror = (error) => out({ event: 'client_error', message: String(error?.message ?? error) });
client.onclose = () => out({ event: 'transport_closed' });

await client.connect(transport);
out({
  event: 'connected',
  pid: transport.pid ?? null,
  sessionId: transport.sessionId ?? null,
  serverVersion: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
});

const calls = new Map();

async function list(id) {
  const tools = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    ++pages;
  } while (cursor !== undefined);
  out({ event: 'tools', id, tools, pages });
}

function call(command) {
  const controller = new AbortController();
  calls.set(command.id, controller);
  const options = { signal: controller.signal, timeout: 120000 };
  if (command.progress)
    options.onprogress = (progress) => out({ event: 'progress', id: command.id, ...progress });
  client
    .callTool({ name: command.name, arguments: command.arguments ?? {} }, undefined, options)
    .then((result) => out({ event: 'result', id: command.id, result }))
    .catch((error) => out({ event: 'rejected', id: command.id, code: error?.code ?? null, message: String(error?.message ?? error) }))
    .finally(() => calls.delete(command.id));
}

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim())
    continue;
  const command = JSON.parse(line);
  try {
    switch (command.op) {
    case 'list':
      await list(command.id);
      break;
    case 'call':
      call(command);
      break;
    case 'cancel':
      calls.get(command.id)?.abort('the test cancels');
      break;
    case 'terminate':
      await transport.terminateSession();
      out({ event: 'terminated' });
      break;
    case 'close':
      await client.close();
      out({ event: 'closed' });
      process.exit(0);
    }
  } catch (error) {
    out({ event: 'rejected', id: command.id ?? null, code: error?.code ?? null, message: String(error?.message ?? error) });
  }
}
