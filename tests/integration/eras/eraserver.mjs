// An MCP server of the official TypeScript SDK v2, in the era(s) the tests ask for:
//   node eraserver.mjs --era 2025|both|2026 [--http]
// "2025" speaks the handshake era only, "2026" the stateless era only (it answers an initialize
// with -32022), "both" either, by the first message (stdio) or per request (HTTP). Over HTTP it
// listens on a free loopback port and prints one JSON line: {"mcp": "http://127.0.0.1:PORT/mcp"}.
//
// Tools: echo {text}; confirm {env} (asks an elicitation form, then checks that requestState came
// back byte for byte); ask {q} (asks for sampling); roots (asks for roots/list); add-tool (adds
// the tool "added" and says the list changed); touch (says file:///readme.txt changed); nag (asks
// an elicitation form whatever the answer, for ever, and counts the calls); nag-count (says how
// many times nag was called, in this process).
import http from 'node:http';
import { McpServer, inputRequired, acceptedContent, inputResponse, createMcpHandler, legacyStatelessFallback } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

const args = process.argv.slice(2);
const era = args[args.indexOf('--era') + 1] ?? 'both';
const overHttp = args.includes('--http');
// What the requestState of confirm carries: a quote, a backslash and a non-ASCII letter, so that
// only a byte-for-byte echo matches.
const confirmState = 'state:"round-1"\\ñ';

let added = false;          // add-tool was called: every instance lists "added"
let nagged = 0;              // the calls of nag, every round of every instance
const instances = new Set(); // stdio: the instances serving, which tell their listeners
let handler;                 // HTTP: tells every listener

function tellToolsChanged() {
  if (handler) handler.notify.toolsChanged();
  for (const server of instances) server.sendToolListChanged();
}

function tellReadmeChanged() {
  if (handler) handler.notify.resourceUpdated('file:///readme.txt');
  for (const server of instances) server.server.sendResourceUpdated({ uri: 'file:///readme.txt' }).catch(() => {});
}

function makeServer() {
  const server = new McpServer({ name: `era-server-${era}`, version: '1.0.0' }, {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, logging: {} },
    instructions: `speaks ${era}`,
  });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }, ctx) => {
      await ctx.mcpReq.log('info', `echoing ${text}`);
      return { content: [{ type: 'text', text }] };
    });
  server.registerTool('confirm', { description: 'Asks for a confirmation', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (answer.kind !== 'elicit') {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
            }),
          },
          requestState: confirmState,
        });
      }
      const state = ctx.mcpReq.requestState?.();
      if (state !== undefined && state !== confirmState)
        return { content: [{ type: 'text', text: `requestState came back changed: ${JSON.stringify(state)}` }], isError: true };
      return { content: [{ type: 'text', text: `${answer.action}: deploy to ${env} confirm=${answer.content?.confirm}` }] };
    });
  server.registerTool('ask', { description: 'Asks the client for a completion', inputSchema: z.object({ q: z.string() }) },
    async ({ q }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'llm');
      if (answer.kind !== 'sampling')
        return inputRequired({ inputRequests: { llm: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: q } }], maxTokens: 50 }) } });
      return { content: [{ type: 'text', text: `sampled: ${answer.result.content.text}` }] };
    });
  server.registerTool('roots', { description: "Lists the client's roots", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (answer.kind !== 'roots')
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      return { content: [{ type: 'text', text: `roots: ${answer.roots.map((root) => root.uri).join(' ')}` }] };
    });
  server.registerTool('nag', { description: 'Asks for a confirmation, for ever', inputSchema: z.object({}) },
    async () => {
      nagged += 1;
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: `Sure? (round ${nagged})`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
          }),
        },
      });
    });
  server.registerTool('nag-count', { description: 'Says how many times nag was called', inputSchema: z.object({}) },
    async () => ({ content: [{ type: 'text', text: `${nagged}` }] }));
  server.registerTool('add-tool', { description: 'Adds the tool "added"', inputSchema: z.object({}) }, async () => {
    // Every instance serving lists it before any hears that the list changed.
    if (!added) {
      added = true;
      for (const instance of instances)
        registerAdded(instance);
    }
    setTimeout(tellToolsChanged, 0);
    return { content: [{ type: 'text', text: 'added' }] };
  });
  server.registerTool('touch', { description: 'Changes file:///readme.txt', inputSchema: z.object({}) }, async () => {
    setTimeout(tellReadmeChanged, 0);
    return { content: [{ type: 'text', text: 'touched' }] };
  });
  if (added)
    registerAdded(server);
  server.registerResource('readme', 'file:///readme.txt', { mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'hello' }] }));
  return server;
}

// An instance made before add-tool lists "added" too once it was added.
function registerAdded(server) {
  server.registerTool('added', { description: 'Added while running', inputSchema: z.object({}) },
    async () => ({ content: [{ type: 'text', text: 'the added tool' }] }));
}

// stdio: an instance that is told of changes (add-tool, touch) while it serves.
function tracked() {
  const server = makeServer();
  instances.add(server);
  return server;
}

if (overHttp) {
  const factory = async () => makeServer();
  const fetchHandler = era === '2025'
    ? { fetch: legacyStatelessFallback(factory) }
    : createMcpHandler(factory, { legacy: era === '2026' ? 'reject' : 'stateless' });
  if (fetchHandler.notify)
    handler = fetchHandler;
  const listener = http.createServer(toNodeHandler(fetchHandler));
  listener.listen(0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ mcp: `http://127.0.0.1:${listener.address().port}/mcp` }) + '\n');
  });
} else if (era === '2025') {
  await tracked().connect(new StdioServerTransport());
} else {
  serveStdio(async () => tracked(), {
    legacy: era === '2026' ? 'reject' : 'serve',
    onerror: (error) => process.stderr.write(`eraserver: ${error.message}\n`),
  });
}
