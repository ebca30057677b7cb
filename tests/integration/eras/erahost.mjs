// An MCP host made of the official TypeScript SDK v2 client, in the era mode a test asks for,
// in front of a command it starts over stdio or of a Streamable HTTP URL:
//   node erahost.mjs --mode legacy|auto|2026 [--call NAME JSON]... [--listen] -- PROGRAM ARGS...
//   node erahost.mjs --mode legacy|auto|2026 [--call NAME JSON]... [--listen] --http URL TOKEN
// It connects, lists the tools, makes each call in turn and exits, writing one JSON line for
// each step: {"event":"connected","protocol":…,"server":…}, {"event":"tools","names":[…]},
// {"event":"result","name":…,"result":{…}} or {"event":"rejected","name":…,"code":…,"message":…},
// and {"event":"asked","method":…,"params":{…}} for each question of a server it answers:
// elicitation with {"action":"accept","content":{"confirm":true}}, sampling with "42". With
// --listen (stateless only) it also waits, after the calls, for a tools/list_changed that the
// last call causes: {"event":"list_changed"}. Errors: {"event":"failed","message":…} and exit 1.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const args = process.argv.slice(2);
const out = (event) => process.stdout.write(JSON.stringify(event) + '\n');
let mode = 'legacy';
const calls = [];
let listen = false;
let transport;
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--mode') mode = args[++i];
  else if (args[i] === '--call') { calls.push([args[i + 1], JSON.parse(args[i + 2])]); i += 2; }
  else if (args[i] === '--listen') listen = true;
  else if (args[i] === '--http') {
    transport = new StreamableHTTPClientTransport(new URL(args[i + 1]), {
      requestInit: { headers: { Authorization: `Bearer ${args[i + 2]}` } },
    });
    break;
  } else if (args[i] === '--') {
    transport = new StdioClientTransport({ command: args[i + 1], args: args.slice(i + 2), stderr: 'ignore' });
    break;
  }
}

const negotiation = mode === '2026' ? { mode: { pin: '2026-07-28' } } : { mode };
const client = new Client({ name: 'era-host', version: '1.0.0' }, {
  capabilities: { elicitation: { form: {} }, sampling: {} },
  versionNegotiation: negotiation,
});
client.setRequestHandler('elicitation/create', async (request) => {
  out({ event: 'asked', method: 'elicitation/create', params: request.params });
  return { action: 'accept', content: { confirm: true } };
});
client.setRequestHandler('sampling/createMessage', async (request) => {
  out({ event: 'asked', method: 'sampling/createMessage', params: request.params });
  return { role: 'assistant', content: { type: 'text', text: '42' }, model: 'era-host-model' };
});

try {
  await client.connect(transport);
  out({ event: 'connected', protocol: client._negotiatedProtocolVersion ?? null, server: client.getServerVersion() });
  let changed;
  if (listen) {
    const heard = new Promise((resolve) => { changed = resolve; });
    client.setNotificationHandler('notifications/tools/list_changed', () => changed());
    await client.listen({ toolsListChanged: true });
    changed.heard = heard;
  }
  const tools = await client.listTools();
  out({ event: 'tools', names: tools.tools.map((tool) => tool.name) });
  for (const [name, argumentsObject] of calls) {
    try {
      const result = await client.callTool({ name, arguments: argumentsObject });
      out({ event: 'result', name, result });
    } catch (error) {
      out({ event: 'rejected', name, code: error.code ?? null, message: error.message });
    }
  }
  if (listen) {
    await Promise.race([changed.heard, new Promise((_, reject) => setTimeout(() => reject(new Error('no list_changed within 10 s')), 10000))]);
    out({ event: 'list_changed' });
  }
  await client.close();
  process.exit(0);
} catch (error) {
  out({ event: 'failed', message: error.message });
  process.exit(1);
}
