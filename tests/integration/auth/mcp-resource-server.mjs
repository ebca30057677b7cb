// mcp-resource-server.mjs --issuer URL [--prm path|root|none] [--no-challenge-metadata] [--as-metadata-at-origin]
//   [--scope mcp:read] [--reject-after-ms N] [--list-scope S] [--stream-scope S]   → prints {"mcp": ".../mcp", "sse": ".../sse"}
import express from 'express'; import { parseArgs } from 'node:util'; import { createRemoteJWKSet, jwtVerify } from 'jose'; import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
const { values: o } = parseArgs({ options: { issuer: { type: 'string' }, prm: { type: 'string', default: 'path' }, 'no-challenge-metadata': { type: 'boolean' },
  'as-metadata-at-origin': { type: 'boolean' }, scope: { type: 'string', default: 'mcp:read' }, 'reject-after-ms': { type: 'string' },
  'list-scope': { type: 'string' }, 'stream-scope': { type: 'string' } } });
const app = express(); const srv = app.listen(0, '127.0.0.1'); await new Promise((r) => srv.once('listening', r));
const origin = `http://127.0.0.1:${srv.address().port}`, seen = new Set();
const asMeta = await (await fetch(`${o.issuer}/.well-known/openid-configuration`, { headers: { 'x-internal': '1' } })).json();
const jwks = createRemoteJWKSet(new URL(asMeta.jwks_uri));
const prmUrl = (p) => `${origin}/.well-known/oauth-protected-resource${o.prm === 'root' ? '' : p}`;
for (const p of ['/mcp', '/sse']) if (o.prm !== 'none') app.get(new URL(prmUrl(p)).pathname, (req, res) => res.json({ resource: origin + p,
  authorization_servers: [o.issuer], scopes_supported: ['mcp:read'], bearer_methods_supported: ['header'] }));
if (o['as-metadata-at-origin']) app.get('/.well-known/oauth-authorization-server', (req, res) => res.json(asMeta)); // 2025-03-26 fallback
const guard = (p) => requireBearerAuth({ resourceMetadataUrl: o['no-challenge-metadata'] || o.prm === 'none' ? undefined : prmUrl(p),
  verifier: { async verifyAccessToken(token) { seen.add(token);
    try { const { payload } = await jwtVerify(token, jwks, { issuer: o.issuer, audience: origin + p });      // RFC 8707 audience
      if (o['reject-after-ms'] && payload.iat * 1000 + Number(o['reject-after-ms']) < Date.now()) throw Object.assign(new Error(), { code: 'ERR_JWT_EXPIRED' });
      return { token, clientId: payload.client_id, scopes: String(payload.scope ?? '').split(' ').filter(Boolean), expiresAt: payload.exp, extra: { sub: payload.sub } };
    } catch (e) { throw new InvalidTokenError(e.code === 'ERR_JWT_EXPIRED' ? 'Token has expired' : 'Invalid token'); } } } });
const scopeHint = (req, res, next) => { const set = res.set.bind(res);                 // scope= in every 401 challenge
  res.set = (k, v) => set(k, k === 'WWW-Authenticate' && !/scope=/.test(v) ? `${v}, scope="${o.scope}"` : v); next(); };
let listScope = o['list-scope'], listAlways = false;       // POST /__test/list-scope?scope=S[&always=1] changes them
const needed = (req) => req.body?.method === 'tools/call' && req.body.params?.name === 'admin_echo' ? ['mcp:admin', 'admin_echo']
  : req.body?.method === 'tools/list' && listScope ? [listScope, 'tools/list', listAlways]
  : req.method === 'GET' && o['stream-scope'] ? [o['stream-scope'], 'the event stream'] : null;
const stepUp = (p) => (req, res, next) => {  // 403 insufficient_scope for admin_echo (tools/list, the SSE stream: as asked)
  const [scope, what, always] = needed(req) ?? [];              // always: refused even with the scope
  if (scope && (always || !req.auth.scopes.includes(scope))) {
    res.set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${[...new Set([...req.auth.scopes, scope])].join(' ')}", `
      + `resource_metadata="${prmUrl(p)}", error_description="${what} needs ${scope}"`);
    return res.status(403).json({ error: 'insufficient_scope' }); }
  next(); };
const newServer = () => { const m = new McpServer({ name: 'tether-auth-test', version: '1.0.0' });
  m.registerTool('whoami', { description: 'the token subject' }, async (extra) => ({ content: [{ type: 'text', text: String(extra.authInfo?.extra?.sub) }] }));
  m.registerTool('admin_echo', { description: 'needs mcp:admin', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return m; };
app.use(express.json());
const sessions = new Map();
app.all('/mcp', scopeHint, guard('/mcp'), stepUp('/mcp'), async (req, res) => {
  let t = sessions.get(req.headers['mcp-session-id']);
  if (!t) { if (req.body?.method !== 'initialize') return res.status(404).end();
    t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => sessions.set(id, t) });
    await newServer().connect(t); }
  await t.handleRequest(req, res, req.body); });
const sse = new Map();
app.get('/sse', scopeHint, guard('/sse'), stepUp('/sse'), async (req, res) => { const t = new SSEServerTransport('/messages', res);
  sse.set(t.sessionId, t); res.on('close', () => sse.delete(t.sessionId)); await newServer().connect(t); });
app.post('/messages', scopeHint, guard('/sse'), stepUp('/sse'), async (req, res) => {
  const t = sse.get(req.query.sessionId); if (!t) return res.status(404).end(); await t.handlePostMessage(req, res, req.body); });
app.get('/__test/seen-tokens', (req, res) => res.json([...seen]));                     // for the secrecy greps
app.post('/__test/list-scope', (req, res) => { listScope = req.query.scope || undefined; listAlways = req.query.always === '1'; res.end(); });
console.log(JSON.stringify({ mcp: `${origin}/mcp`, sse: `${origin}/sse` }));
