// The official TypeScript SDK's client doing what tether-recovery-bench times Tether doing: a stdio
// server is connected and its tools listed, then killed with SIGKILL again and again; each time the
// client reconnects at once (a new transport and Client, initialize, tools/list).
// Detection is kill -> the transport's onclose; recovery is kill -> the tools listed again. With
// --idle-ms, each server sits idle that long after its tools are listed before it is killed.
//
// Usage: node sdk-recovery-client.mjs --kills N [--idle-ms MS] -- COMMAND [ARG...]
// Prints one JSON line {"detectionMs":[…],"recoveryMs":[…],"tools":N}; the benchmark computes the
// percentiles.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: options, positionals } = parseArgs({
    allowPositionals: true,
    options: { kills: { type: 'string', default: '100' }, 'idle-ms': { type: 'string', default: '0' } },
});
const kills = Number(options.kills);
const idleMs = Number(options['idle-ms']);
const [command, ...args] = positionals;
if (!command || !(kills > 0) || !(idleMs >= 0)) {
    process.stderr.write('usage: node sdk-recovery-client.mjs --kills N [--idle-ms MS] -- COMMAND [ARG...]\n');
    process.exit(2);
}

// A connected client with its tools listed; `closed` settles when its transport closes.
async function connect() {
    const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
    const client = new Client({ name: 'sdk-recovery-client', version: '1.0.0' });
    const closed = new Promise(resolve => { client.onclose = () => resolve(performance.now()); });
    await client.connect(transport);
    const { tools } = await client.listTools();
    return { client, transport, closed, tools: tools.length };
}

const detectionMs = [];
const recoveryMs = [];
let current = await connect();
const tools = current.tools;
for (let i = 0; i < kills; ++i) {
    if (idleMs > 0)
        await new Promise(resolve => setTimeout(resolve, idleMs));
    const killedAt = performance.now();
    process.kill(current.transport.pid, 'SIGKILL');
    detectionMs.push(await current.closed - killedAt);
    current = await connect();
    recoveryMs.push(performance.now() - killedAt);
    if (current.tools !== tools)
        throw new Error(`kill ${i + 1}: ${current.tools} tools listed again, not ${tools}`);
}
await current.client.close();
process.stdout.write(JSON.stringify({ detectionMs, recoveryMs, tools }) + '\n');
