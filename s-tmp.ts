import { startApiServer } from './src/api/server';
import { loadConfig } from './src/config';
async function main() {
  const cfg = { ...loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:17233', GATE_DATA_DIR: '/tmp/gate-smoke' } as any), port: 0 };
  const api = await startApiServer(cfg);
  console.log(api.url);
  for (const p of ['/healthz', '/', '/v1/approvals', '/nope']) {
    const r = await fetch(api.url + p); console.log(p, r.status, (await r.text()).slice(0, 100).replace(/\n/g, ' '));
  }
  await api.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
