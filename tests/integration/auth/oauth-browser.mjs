// TETHER_TEST_LOGIN (default alice); TETHER_TEST_BROWSER=approve|deny|stall|state; TETHER_TEST_BROWSER_MARK=FILE: touched when run
if (process.env.TETHER_TEST_BROWSER_MARK) (await import('node:fs')).writeFileSync(process.env.TETHER_TEST_BROWSER_MARK, '');
const mode = process.env.TETHER_TEST_BROWSER ?? 'approve', login = process.env.TETHER_TEST_LOGIN ?? 'alice', jar = new Map();
let url = process.argv[2], init = {};
for (let hop = 0; hop < 20; hop++) {
  const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
  for (const c of res.headers.getSetCookie()) { const kv = c.split(';')[0], i = kv.indexOf('='); jar.set(kv.slice(0, i), kv.slice(i + 1)); }
  const location = res.headers.get('location');
  if (location) { const next = new URL(location, url);
    if (next.hostname === '127.0.0.1' && next.pathname === '/callback') {                   // Tether's loopback receiver
      if (mode === 'stall') process.exit(0);
      if (mode === 'state') next.searchParams.set('state', 'not-the-one-sent');
      const page = await fetch(next); process.stderr.write(`browser: ${page.status} ${await page.text()}\n`); process.exit(0); }
    url = next.href; init = {}; continue; }
  const html = await res.text(), action = html.match(/<form[^>]*action="([^"]+)"/)?.[1], prompt = html.match(/name="prompt" value="(\w+)"/)?.[1];
  if (!action) throw new Error(`browser: no form and no redirect at ${url} (HTTP ${res.status})`);
  url = new URL(action, url).href;
  if (mode === 'deny' && prompt === 'login') { url += '/abort'; init = {}; continue; }          // → error=access_denied
  init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
           body: new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }) };
}
throw new Error('browser: too many redirects');
