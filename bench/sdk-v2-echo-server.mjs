// The server of tether-gateway-bench's 2026-07-28 legs: an MCP server of the official TypeScript
// SDK v2 (@modelcontextprotocol/server) that speaks 2026-07-28 only (stateless: no initialize, the
// envelope in every request's _meta; a 2025 initialize gets -32022), with one tool:
//   echo {message}  answers the message as text, as tether-demo-server's echo does
// Usage: node sdk-v2-echo-server.mjs                 over stdio
//        node sdk-v2-echo-server.mjs --http --port N  Streamable HTTP at http://127.0.0.1:N/mcp, each
//                                                    POST served on its own (no session)
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

function makeServer() {
    const server = new McpServer({ name: 'tether-bench-sdk-v2-server', version: '1.0.0' },
        { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Echoes the message', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => ({ content: [{ type: 'text', text: message }] }));
    return server;
}

const args = process.argv.slice(2);
if (args.includes('--http')) {
    const port = Number(args[args.indexOf('--port') + 1]);
    if (!(port > 0)) {
        process.stderr.write('usage: node sdk-v2-echo-server.mjs [--http --port N]\n');
        process.exit(2);
    }
    const handler = createMcpHandler(async () => makeServer(), { legacy: 'reject' });
    http.createServer(toNodeHandler(handler)).listen(port, '127.0.0.1');
} else {
    serveStdio(async () => makeServer(), {
        legacy: 'reject',
        onerror: (error) => process.stderr.write(`sdk-v2-echo-server: ${error.message}\n`),
    });
}
