// oauth-server.mjs --issuer-path /tenant1 --resource loopback --access-ttl 5 --pkce-methods S256
//   --discovery oauth-insert,oidc-insert,oidc-append [--no-registration] [--client ID:SECRET]
//   [--reject-registration TEXT] [--token-error CODE]     → prints {"issuer": …, "port": …}
import http from 'node:http'; import { parseArgs } from 'node:util'; import Provider from 'oidc-provider';
const { values: o } = parseArgs({ options: { 'issuer-path': { type: 'string', default: '' }, resource: { type: 'string', multiple: true, default: [] },
  scopes: { type: 'string', default: 'mcp:read mcp:admin' }, 'access-ttl': { type: 'string', default: '3600' }, 'pkce-methods': { type: 'string', default: 'S256' },
  discovery: { type: 'string', default: 'oauth-insert,oidc-insert,oidc-append' }, client: { type: 'string', multiple: true, default: [] },
  'no-registration': { type: 'boolean', default: false }, 'reject-registration': { type: 'string' }, 'token-error': { type: 'string' } } });
const server = http.createServer(); await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`, ip = o['issuer-path'].replace(/\/$/, ''), issuer = origin + ip;
const refreshTokens = new Set();
const provider = new Provider(issuer, {
  clients: o.client.map((c) => { const [client_id, client_secret] = c.split(':'); return { client_id, client_secret, application_type: 'native',
    redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    token_endpoint_auth_method: client_secret ? 'client_secret_basic' : 'none' }; }),
  cookies: { keys: ['tether-test-only'] }, scopes: ['openid', 'offline_access', ...o.scopes.split(' ')],
  pkce: { methods: o['pkce-methods'].split(','), required: () => true },      // 'plain' → the "no S256" test
  features: { devInteractions: { enabled: true }, registration: { enabled: !o['no-registration'] },
    revocation: { enabled: true }, introspection: { enabled: true },
    resourceIndicators: { enabled: true, useGrantedResource: async () => true, defaultResource: async (ctx, client, oneOf) => oneOf,
      getResourceServerInfo: async (ctx, resource) => {
        if (!o.resource.includes(resource) && !(o.resource.includes('loopback') && resource.startsWith('http://127.0.0.1:')))
          throw new Provider.errors.InvalidTarget();
        return { scope: o.scopes, audience: resource, accessTokenTTL: Number(o['access-ttl']), accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      } } },
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),   // no offline_access needed
  findAccount: async (ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, email: `${sub}@example.test` }) }),
});
provider.on('refresh_token.saved', (t) => refreshTokens.add(t.jti));
provider.on('grant.success', (ctx) => console.log(JSON.stringify({ event: 'token', grant_type: ctx.oidc.params.grant_type })));
provider.on('grant.error', (ctx, e) => console.log(JSON.stringify({ event: 'token-error', error: e.error })));
const wanted = new Set(o.discovery.split(','));
const where = { 'oauth-insert': `/.well-known/oauth-authorization-server${ip}`, 'oidc-insert': `/.well-known/openid-configuration${ip}`,
                'oidc-append': `${ip}/.well-known/openid-configuration` };
const callback = provider.callback();
server.on('request', async (req, res) => {
  const path = req.url.split('?')[0];
  if (path === '/__test/revoke-refresh-tokens' && req.method === 'POST') {           // "revoked refresh" test
    for (const jti of refreshTokens) await (await provider.RefreshToken.find(jti))?.destroy();
    refreshTokens.clear(); return res.writeHead(204).end(); }
  if (path === '/__test/refresh-tokens') return res.writeHead(200).end(JSON.stringify([...refreshTokens])); // for the secrecy greps
  if (req.method === 'POST' && o['reject-registration'] && path.endsWith('/reg')) return res.writeHead(400, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: 'invalid_client_metadata', error_description: o['reject-registration'] }));
  if (req.method === 'POST' && o['token-error'] && path.endsWith('/token')) { const error = o['token-error']; o['token-error'] = undefined;
    return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error, error_description: 'test says no' })); }
  if (path.includes('/.well-known/') && !req.headers['x-internal']) {                // discovery exactly where asked
    const served = Object.entries(where).some(([k, p]) => p === path && wanted.has(k));
    console.log(JSON.stringify({ event: 'discovery', path, served }));
    if (!served) return res.writeHead(404).end();
    const doc = await (await fetch(`${issuer}/.well-known/openid-configuration`, { headers: { 'x-internal': '1' } })).json();
    return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc)); }
  if (ip && path.startsWith(ip)) { req.originalUrl = req.url; req.url = req.url.slice(ip.length) || '/'; } // mounted under the issuer path
  callback(req, res);
});
console.log(JSON.stringify({ issuer, port: server.address().port }));
