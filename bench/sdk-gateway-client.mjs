// The host's side of tether-gateway-bench: the official TypeScript SDK's Client, connected to an MCP
// server over stdio (a command it starts) or Streamable HTTP (a URL), doing one job. The SDK 1.x
// client speaks 2025-11-25 (initialize, then a session); with --protocol 2026 the SDK v2 client
// (@modelcontextprotocol/client) is pinned to 2026-07-28 (stateless: no initialize, the envelope
// in every request's _meta, over HTTP each request a POST of its own with no session).
//
// Usage: node sdk-gateway-client.mjs [OPTIONS] JOB -- stdio COMMAND [ARG...]
//        node sdk-gateway-client.mjs [OPTIONS] JOB -- http URL
// Jobs:
//   calls  WARMUP untimed calls of TOOL, then CALLS timed ones one at a time, then CALLS with
//          IN_FLIGHT in flight
//   list   one untimed tools/list of every page, then LISTS timed ones
//   kill   calls of TOOL with IN_FLIGHT in flight; after WARMUP of them, SIGKILL to the deepest
//          descendant of the started command (the upstream server behind a gateway), then
//          CALLS more; the tool list before and after
// Options: --tool NAME (echo), --calls N (1000), --in-flight N (16), --warmup N (200),
//          --lists N (5), --env NAME=VALUE (for the started command; repeatable), --header 'NAME: VALUE'
//          (sent with every HTTP request; repeatable), --root-pid N (kill: the process whose deepest
//          descendant is killed; default the started command), --sampling (declare sampling and
//          answer each sampling/createMessage at once; TOOL is then called with a prompt, as the
//          demo server's `sample` takes it), --hold (after the figures, wait for a line on stdin before
//          closing: the caller looks at the processes first), --protocol 2025|2026 (2025: the SDK
//          1.x client; 2026: the SDK v2 client pinned to 2026-07-28; default 2025).
// Prints one JSON line {"event":"connected","pid":…,"connectMs":…} once connected, then one
// {"event":"figures",…} line with the job's figures; the benchmark computes the percentiles.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: options, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        tool: { type: 'string', default: 'echo' },
        calls: { type: 'string', default: '1000' },
        'in-flight': { type: 'string', default: '16' },
        warmup: { type: 'string', default: '200' },
        lists: { type: 'string', default: '5' },
        env: { type: 'string', multiple: true, default: [] },
        header: { type: 'string', multiple: true, default: [] },
        'root-pid': { type: 'string' },
        sampling: { type: 'boolean', default: false },
        hold: { type: 'boolean', default: false },
        protocol: { type: 'string', default: '2025' },
    },
});
const [job, mode, target, ...args] = positionals;
const calls = Number(options.calls);
const inFlight = Number(options['in-flight']);
const warmup = Number(options.warmup);
const lists = Number(options.lists);
if (!['calls', 'list', 'kill'].includes(job) || !['stdio', 'http'].includes(mode) || !target
    || !(calls > 0) || !(inFlight > 0) || !(warmup >= 0) || !(lists > 0) || !['2025', '2026'].includes(options.protocol)) {
    process.stderr.write('usage: node sdk-gateway-client.mjs [--tool NAME] [--calls N] [--in-flight N] [--warmup N] '
        + '[--lists N] [--env NAME=VALUE]... [--header \'NAME: VALUE\']... [--root-pid N] [--sampling] [--hold] [--protocol 2025|2026] calls|list|kill -- stdio COMMAND [ARG...] | -- http URL\n');
    process.exit(2);
}

const out = (object) => process.stdout.write(JSON.stringify(object) + '\n');
const now = () => Number(process.hrtime.bigint()) / 1e6;

let transport;
let client;
if (options.protocol === '2025') {
    if (mode === 'stdio') {
        const env = getDefaultEnvironment();
        for (const entry of options.env) {
            const at = entry.indexOf('=');
            env[entry.slice(0, at)] = entry.slice(at + 1);
        }
        transport = new StdioClientTransport({ command: target, args, env, stderr: 'inherit' });
    } else {
        const headers = Object.fromEntries(options.header.map((entry) => {
            const colon = entry.indexOf(':');
            return [entry.slice(0, colon).trim(), entry.slice(colon + 1).trim()];
        }));
        transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
    }
    client = new Client({ name: 'tether-gateway-bench', version: '1.0.0' },
        options.sampling ? { capabilities: { sampling: {} } } : {});
    if (options.sampling) {
        client.setRequestHandler(CreateMessageRequestSchema, async () => (
            { model: 'tether-gateway-bench', role: 'assistant', content: { type: 'text', text: 'sampled' } }));
    }
} else {
    // The SDK v2 client, pinned: its connect asks server/discover (over stdio of a process of its
    // own, started and ended for that alone) and fails unless the answer offers 2026-07-28.
    const v2 = await import('@modelcontextprotocol/client');
    const v2Stdio = await import('@modelcontextprotocol/client/stdio');
    if (mode === 'stdio') {
        const env = v2Stdio.getDefaultEnvironment();
        for (const entry of options.env) {
            const at = entry.indexOf('=');
            env[entry.slice(0, at)] = entry.slice(at + 1);
        }
        transport = new v2Stdio.StdioClientTransport({ command: target, args, env, stderr: 'inherit' });
    } else {
        const headers = Object.fromEntries(options.header.map((entry) => {
            const colon = entry.indexOf(':');
            return [entry.slice(0, colon).trim(), entry.slice(colon + 1).trim()];
        }));
        transport = new v2.StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
    }
    client = new v2.Client({ name: 'tether-gateway-bench', version: '1.0.0' }, {
        capabilities: options.sampling ? { sampling: {} } : {},
        versionNegotiation: { mode: { pin: '2026-07-28' } },
    });
    if (options.sampling) {
        client.setRequestHandler('sampling/createMessage', async () => (
            { model: 'tether-gateway-bench', role: 'assistant', content: { type: 'text', text: 'sampled' } }));
    }
}
const connectStart = now();
await client.connect(transport);
if (options.protocol === '2026' && client._negotiatedProtocolVersion !== '2026-07-28')
    throw new Error(`the client speaks ${client._negotiatedProtocolVersion} with ${target}, not 2026-07-28`);
out({ event: 'connected', pid: transport.pid ?? null, connectMs: now() - connectStart,
    protocol: options.protocol === '2026' ? client._negotiatedProtocolVersion : undefined });

let sent = 0;
// One call; its latency in ms, or null when it failed (an error result or a rejection).
async function callOnce() {
    const start = now();
    try {
        const text = `call ${sent++}`;
        const result = await client.callTool({ name: options.tool, arguments: options.sampling ? { prompt: text } : { message: text } });
        return result.isError ? null : now() - start;
    } catch {
        return null;
    }
}

// `count` calls with `parallel` of them in flight; `onAnswer(latency, startedAt, answeredAt)` per call.
async function run(count, parallel, onAnswer) {
    let started = 0;
    const worker = async () => {
        while (started < count) {
            ++started;
            const startedAt = now();
            const latency = await callOnce();
            onAnswer(latency, startedAt, now());
        }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

async function timedRun(count, parallel) {
    const latenciesMs = [];
    let failed = 0;
    const begin = now();
    await run(count, parallel, (latency) => (latency === null ? ++failed : latenciesMs.push(latency)));
    if (failed > 0)
        throw new Error(`${failed} of ${count} calls of ${options.tool} failed`);
    return { seconds: (now() - begin) / 1000, latenciesMs };
}

async function toolNames() {
    const names = [];
    let cursor;
    do {
        const page = await client.listTools(cursor ? { cursor } : {});
        names.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
    } while (cursor);
    return names;
}

// The process at the bottom of `pid`'s first line of descendants: the server behind a gateway and
// its launcher.
function deepestDescendant(pid) {
    for (;;) {
        let children = [];
        for (const task of readdirSync(`/proc/${pid}/task`)) {
            children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean));
        }
        if (children.length === 0)
            return pid;
        pid = Number(children[0]);
    }
}

if (job === 'calls') {
    await run(warmup, 1, () => {});
    const sequential = await timedRun(calls, 1);
    const concurrent = await timedRun(calls, inFlight);
    out({ event: 'figures', sequential, concurrent });
} else if (job === 'list') {
    const tools = (await toolNames()).length;
    const listMs = [];
    for (let i = 0; i < lists; ++i) {
        const start = now();
        await toolNames();
        listMs.push(now() - start);
    }
    out({ event: 'figures', tools, listMs });
} else {
    const before = await toolNames();
    let answered = 0;
    let killedAt = null;
    let killedPid = null;
    let firstGoodAfterKillMs = null;
    let failedAfterKill = 0;
    let inFlightAtKill = 0;
    await run(warmup + calls, inFlight, (latency, startedAt, answeredAt) => {
        if (killedAt !== null && latency === null)
            ++failedAfterKill;
        if (killedAt !== null && latency !== null && startedAt >= killedAt && firstGoodAfterKillMs === null)
            firstGoodAfterKillMs = answeredAt - killedAt;
        if (++answered === warmup) {
            killedPid = deepestDescendant(Number(options['root-pid'] ?? transport.pid));
            inFlightAtKill = Math.min(inFlight, warmup + calls - answered + 1) - 1; // every other worker's call
            killedAt = now();
            process.kill(killedPid, 'SIGKILL');
        }
    });
    const after = await toolNames();
    out({
        event: 'figures', killedPid, inFlightAtKill, firstGoodAfterKillMs, failedAfterKill, callsAfterKill: calls,
        toolsBefore: before.length, toolsUnchanged: JSON.stringify(before) === JSON.stringify(after),
    });
}
if (options.hold) {
    await new Promise((resolve) => {
        process.stdin.once('data', resolve);
        process.stdin.once('end', resolve);
    });
}
await client.close();
process.exit(0); // stdin may still be open
