// The official TypeScript SDK's side of tether-http-bench: the same tools/call figures as
// Tether's side, measured with the SDK's Client over its StreamableHTTPClientTransport.
//
// Usage: node sdk-http-client.mjs URL CALLS IN_FLIGHT WARMUP
// Prints one JSON object: {"sequential": FIGURES, "concurrent": FIGURES}, where FIGURES is
// {"seconds": wall time of all calls, "latenciesMs": [each call's latency]}; the benchmark
// computes the percentiles of both sides alike.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, calls, inFlight, warmup] = [process.argv[2], ...process.argv.slice(3, 6).map(Number)];
if (!url || !(calls > 0) || !(inFlight > 0) || !(warmup >= 0)) {
    process.stderr.write('usage: node sdk-http-client.mjs URL CALLS IN_FLIGHT WARMUP\n');
    process.exit(2);
}

const client = new Client({ name: 'sdk-http-bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

let sent = 0;
async function callOnce(latencies) {
    const start = process.hrtime.bigint();
    const result = await client.callTool({ name: 'echo', arguments: { message: `call ${sent++}` } });
    if (result.isError)
        throw new Error(`echo returned an error: ${JSON.stringify(result.content)}`);
    latencies?.push(Number(process.hrtime.bigint() - start) / 1e6);
}

// `count` calls, `parallel` of them in flight at any time.
async function run(count, parallel) {
    const latencies = [];
    let started = 0;
    const begin = process.hrtime.bigint();
    const worker = async () => {
        while (started < count) {
            ++started;
            await callOnce(latencies);
        }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return { seconds: Number(process.hrtime.bigint() - begin) / 1e9, latenciesMs: latencies };
}

for (let i = 0; i < warmup; ++i)
    await callOnce(null);
const sequential = await run(calls, 1);
const concurrent = await run(calls, inFlight);
await client.close();
process.stdout.write(JSON.stringify({ sequential, concurrent }) + '\n');
