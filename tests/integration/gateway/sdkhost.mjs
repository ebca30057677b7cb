// An MCP host made of the official TypeScript SDK client, driven by a test: it starts the command
// given on its command line as a stdio MCP server (or connects to a Streamable HTTP endpoint with
// a bearer token), then reads one JSON command per line on stdin and writes one JSON event per
// line on stdout.
//
//   node sdkhost.mjs [host options] <program> [args...]
//   node sdkhost.mjs [host options] --http <url> <token>
// Host options, before the program:
//   --name NAME             the client's name in its clientInfo (default tether-test-host; version 1.0.0)
//   --capabilities LIST     what it declares, comma-separated: sampling, elicitation (form mode),
//                           elicitation-url (URL mode), roots (with listChanged)
//   --roots URI[,URI...]    its roots at the start (named after their last path segment)
//
// Commands and the events they bring:
//   {"op":"list","id":"l1"}                                 -> {"event":"tools","id":"l1","tools":[...],"pages":n}
//   {"op":"call","id":"c1","name":"demo__echo","arguments":{...},"progress":true,"timeoutMs":n}
//                                                           -> {"event":"progress","id":"c1",...}, then
//                                                              {"event":"result","id":"c1","result":{...}} or
//                                                              {"event":"rejected","id":"c1","code":n,"message":"...","data":...}
//   {"op":"cancel","id":"c1"}                               aborts call (or task) c1 (the SDK sends notifications/cancelled)
//   {"op":"task","id":"t1","name":"...","arguments":{...},"ttl":n}
//                                                           calls the tool as a task (callToolStream): {"event":"task_created",
//                                                              "id":"t1","task":{...}}, {"event":"task_status","id":"t1","task":{...}}…,
//                                                              then "result" or "rejected" as for a call
//   {"op":"tasks","id":"k1"}                                -> {"event":"tasks","id":"k1","tasks":[...]}
//   {"op":"resources","id":"r1"}                            -> {"event":"resources","id":"r1","resources":[...],"pages":n}
//   {"op":"templates","id":"r2"}                            -> {"event":"templates","id":"r2","resourceTemplates":[...]}
//   {"op":"read","id":"r3","uri":"..."}                     -> {"event":"read","id":"r3","result":{"contents":[...]}}
//   {"op":"subscribe"|"unsubscribe","id":"s1","uri":"..."}  -> {"event":"subscribed"|"unsubscribed","id":"s1"}
//   {"op":"prompts","id":"p1"}                              -> {"event":"prompts","id":"p1","prompts":[...]}
//   {"op":"prompt","id":"p2","name":"...","arguments":{}}   -> {"event":"prompt","id":"p2","result":{...}}
//   {"op":"complete","id":"x1","ref":{...},"argument":{"name","value"},"context":{...}}
//                                                           -> {"event":"completion","id":"x1","completion":{...}}
//   {"op":"setLevel","id":"v1","level":"debug"}             -> {"event":"level_set","id":"v1"}
//   {"op":"ping","id":"g1"}                                 -> {"event":"pong","id":"g1"}
//   {"op":"request","id":"q1","method":"...","params":{}}   any request -> {"event":"response","id":"q1","result":{...}}
//   {"op":"answer","method":"sampling/createMessage"|"elicitation/create"|"roots/list","mode":"form"|"url",
//    "result":{...} | "error":{"code":n,"message":"..."} | "never":true, "delayMs":n}
//                                                           how the host answers the server's requests of that
//                                                              method (and elicitation mode) from now on
//   {"op":"roots","roots":[{"uri","name"}]}                 sets its roots and sends roots/list_changed -> {"event":"roots_set"}
//   {"op":"terminate"}                                      HTTP: ends the session (DELETE) -> {"event":"terminated"}
//   {"op":"close"}                                          -> {"event":"closed"}, and the process exits
// Every failed command brings {"event":"rejected","id":…,"code":n,"message":"..."}.
//
// Unprompted: {"event":"connected",...}, {"event":"list_changed"}, {"event":"stderr","line":"..."} (the
// server's stderr), {"event":"client_error","message":"..."}, {"event":"transport_closed"};
// each request of the server: {"event":"request","method":"...","params":{...}} when it arrives (and
// {"event":"request_cancelled",…} when one never answered is cancelled);
// notifications: {"event":"message","params":{level,logger,data}}, {"event":"resource_updated","uri":"..."},
// {"event":"resources_changed"}, {"event":"prompts_changed"}, {"event":"task_status_notification","params":{...}},
// {"event":"elicitation_complete","params":{"elicitationId":"..."}}.
//
// By default the host answers sampling with {"role":"assistant","content":{"type":"text",
// "text":"<name> answers: <the prompt's text>"},"model":"tether-test-model"}, form elicitation with
// {"action":"accept","content":{"name":"<name>","confirm":true}}, URL elicitation with
// {"action":"accept"}, and roots/list with its roots.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import readline from 'node:readline';
import { z } from 'zod';

const argv = process.argv.slice(2);
let name = 'tether-test-host';
let declared = [];
let roots = [];
const rootOf = (uri) => ({ uri, name: uri.replace(/\/+$/, '').split('/').pop() || uri });
while (argv.length > 0 && ['--name', '--capabilities', '--roots'].includes(argv[0])) {
  const [option, value] = argv.splice(0, 2);
  if (option === '--name')
    name = value;
  else if (option === '--capabilities')
    declared = value.split(',').filter(Boolean);
  else
    roots = value.split(',').filter(Boolean).map(rootOf);
}
const [program, ...args] = argv;
const out = (event) => process.stdout.write(JSON.stringify(event) + '\n');
const failure = (id, error) => ({
  event: 'rejected',
  id: id ?? null,
  code: error?.code ?? null,
  message: String(error?.message ?? error),
  ...(error?.data !== undefined ? { data: error.data } : {}),
});

const capabilities = {};
if (declared.includes('sampling'))
  capabilities.sampling = {};
if (declared.includes('elicitation') || declared.includes('elicitation-url')) {
  capabilities.elicitation = {};
  if (declared.includes('elicitation'))
    capabilities.elicitation.form = {};
  if (declared.includes('elicitation-url'))
    capabilities.elicitation.url = {};
}
if (declared.includes('roots'))
  capabilities.roots = { listChanged: true };

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

const client = new Client({ name, version: '1.0.0' }, { capabilities });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => out({ event: 'list_changed' }));
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => out({ event: 'message', params: n.params }));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => out({ event: 'resource_updated', uri: n.params.uri }));
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => out({ event: 'resources_changed' }));
client.setNotificationHandler(PromptListChangedNotificationSchema, () => out({ event: 'prompts_changed' }));
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => out({ event: 'task_status_notification', params: n.params }));
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => out({ event: 'elicitation_complete', params: n.params }));
client.onerror = (error) => out({ event: 'client_error', message: String(error?.message ?? error) });
client.onclose = () => out({ event: 'transport_closed' });

// How the server's requests are answered: by "method" or "method:mode".
const scripts = new Map();
const promptText = (params) => {
  const last = params?.messages?.at(-1)?.content;
  return Array.isArray(last) ? last.map((part) => part.text ?? '').join('') : (last?.text ?? '');
};
const defaultAnswer = (method, params) => {
  if (method === 'sampling/createMessage')
    return { role: 'assistant', content: { type: 'text', text: `${name} answers: ${promptText(params)}` }, model: 'tether-test-model' };
  if (method === 'elicitation/create')
    return params?.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name, confirm: true } };
  return { roots };
};
async function answer(method, request, extra) {
  const params = request.params ?? {};
  out({ event: 'request', method, params });
  const script = scripts.get(`${method}:${params.mode ?? 'form'}`) ?? scripts.get(method) ?? {};
  if (script.never) {
    // Never answered: only the server's cancellation (or the end of the connection) ends it.
    await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
    out({ event: 'request_cancelled', method, params });
    throw new McpError(-32800, 'cancelled');
  }
  if (script.delayMs)
    await new Promise((resolve) => setTimeout(resolve, script.delayMs));
  if (script.error)
    throw new McpError(script.error.code, script.error.message, script.error.data);
  return script.result ?? defaultAnswer(method, params);
}
if (capabilities.sampling)
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => answer('sampling/createMessage', request, extra));
if (capabilities.elicitation)
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => answer('elicitation/create', request, extra));
if (capabilities.roots)
  client.setRequestHandler(ListRootsRequestSchema, (request, extra) => answer('roots/list', request, extra));

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

// Every page of a list: its items, and how many pages there were.
async function allPages(fetch, member) {
  const items = [];
  let cursor;
  let pages = 0;
  do {
    const page = await fetch(cursor === undefined ? {} : { cursor });
    items.push(...page[member]);
    cursor = page.nextCursor;
    ++pages;
  } while (cursor !== undefined);
  return { items, pages };
}

async function list(id) {
  const { items, pages } = await allPages((params) => client.listTools(params), 'tools');
  out({ event: 'tools', id, tools: items, pages });
}

function call(command) {
  const controller = new AbortController();
  calls.set(command.id, controller);
  const options = { signal: controller.signal, timeout: command.timeoutMs ?? 120000 };
  if (command.progress)
    options.onprogress = (progress) => out({ event: 'progress', id: command.id, ...progress });
  return client
    .callTool({ name: command.name, arguments: command.arguments ?? {} }, undefined, options)
    .then((result) => out({ event: 'result', id: command.id, result }))
    .finally(() => calls.delete(command.id));
}

async function task(command) {
  const controller = new AbortController();
  calls.set(command.id, controller);
  try {
    const stream = client.experimental.tasks.callToolStream(
      { name: command.name, arguments: command.arguments ?? {} }, undefined,
      { signal: controller.signal, timeout: command.timeoutMs ?? 120000, task: { ttl: command.ttl ?? 60000 } });
    for await (const message of stream) {
      if (message.type === 'taskCreated')
        out({ event: 'task_created', id: command.id, task: message.task });
      else if (message.type === 'taskStatus')
        out({ event: 'task_status', id: command.id, task: message.task });
      else if (message.type === 'result')
        out({ event: 'result', id: command.id, result: message.result });
      else if (message.type === 'error')
        out(failure(command.id, message.error));
    }
  } finally {
    calls.delete(command.id);
  }
}

async function run(command) {
  const { id } = command;
  switch (command.op) {
  case 'list':
    return list(id);
  case 'call':
    return call(command);
  case 'task':
    return task(command);
  case 'tasks': {
    const { items } = await allPages((params) => client.experimental.tasks.listTasks(params.cursor), 'tasks');
    return out({ event: 'tasks', id, tasks: items });
  }
  case 'resources': {
    const { items, pages } = await allPages((params) => client.listResources(params), 'resources');
    return out({ event: 'resources', id, resources: items, pages });
  }
  case 'templates': {
    const { items } = await allPages((params) => client.listResourceTemplates(params), 'resourceTemplates');
    return out({ event: 'templates', id, resourceTemplates: items });
  }
  case 'read':
    return out({ event: 'read', id, result: await client.readResource({ uri: command.uri }) });
  case 'subscribe':
    await client.subscribeResource({ uri: command.uri });
    return out({ event: 'subscribed', id });
  case 'unsubscribe':
    await client.unsubscribeResource({ uri: command.uri });
    return out({ event: 'unsubscribed', id });
  case 'prompts': {
    const { items } = await allPages((params) => client.listPrompts(params), 'prompts');
    return out({ event: 'prompts', id, prompts: items });
  }
  case 'prompt':
    return out({ event: 'prompt', id, result: await client.getPrompt({ name: command.name, arguments: command.arguments ?? {} }) });
  case 'complete': {
    const params = { ref: command.ref, argument: command.argument };
    if (command.context)
      params.context = command.context;
    const result = await client.complete(params);
    return out({ event: 'completion', id, completion: result.completion });
  }
  case 'setLevel':
    await client.setLoggingLevel(command.level);
    return out({ event: 'level_set', id });
  case 'ping':
    await client.ping();
    return out({ event: 'pong', id });
  case 'request': {
    const result = await client.request({ method: command.method, params: command.params ?? {} }, z.object({}).passthrough());
    return out({ event: 'response', id, result });
  }
  case 'cancel':
    calls.get(id)?.abort('the test cancels');
    return;
  case 'terminate':
    await transport.terminateSession();
    return out({ event: 'terminated' });
  }
}

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim())
    continue;
  const command = JSON.parse(line);
  // Settings take effect before the next command is read; requests run side by side.
  if (command.op === 'answer') {
    const script = { result: command.result, error: command.error, never: command.never, delayMs: command.delayMs };
    scripts.set(command.mode ? `${command.method}:${command.mode}` : command.method, script);
    continue;
  }
  if (command.op === 'roots') {
    roots = command.roots ?? [];
    client.sendRootsListChanged().then(() => out({ event: 'roots_set' }), (error) => out(failure(null, error)));
    continue;
  }
  if (command.op === 'close') {
    await client.close();
    out({ event: 'closed' });
    process.exit(0);
  }
  run(command).catch((error) => out(failure(command.id, error)));
}
