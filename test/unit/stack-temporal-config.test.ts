import YAML from 'yaml';
import { PORT_OFFSETS, renderTemporalConfig } from '../../src/stack/temporal-config';

// The shape of the server module's config/development-postgres12.yaml, cut to the keys the
// stack rewrites plus one it must leave alone; the production suite runs the real file.
const MODULE_SHAPE = `
log: { stdout: true, level: info }
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
      sql: { pluginName: postgres12, databaseName: temporal, connectAddr: "127.0.0.1:5432", user: u, password: p }
    postgres-visibility:
      sql: { pluginName: postgres12, databaseName: temporal_visibility, connectAddr: "127.0.0.1:5432", user: u, password: p }
global:
  pprof: { port: 7936 }
  metrics: { prometheus: { framework: tally, listenAddress: "127.0.0.1:8000" } }
services:
  frontend: { rpc: { grpcPort: 7233, membershipPort: 6933, bindOnLocalHost: true, httpPort: 7243 } }
  matching: { rpc: { grpcPort: 7235, membershipPort: 6935, bindOnLocalHost: true } }
  history: { rpc: { grpcPort: 7234, membershipPort: 6934, bindOnLocalHost: true } }
  worker: { rpc: { grpcPort: 7239, membershipPort: 6939, bindOnLocalHost: true } }
clusterMetadata:
  clusterInformation: { active: { enabled: true, rpcName: frontend, rpcAddress: "localhost:7233" } }
archival: { history: { state: enabled }, visibility: { state: enabled } }
dynamicConfigClient: { filepath: config/dynamicconfig/development-sql.yaml, pollInterval: 10s }
`;

describe('the stack server config', () => {
  const rendered = YAML.parse(
    renderTemporalConfig(MODULE_SHAPE, { temporalPort: 7633, pgPort: 55432, dynamicConfigFile: '/x/dyn.yaml' }),
  );

  it('moves every listener to the ten ports from GATE_STACK_TEMPORAL_PORT, none shared', () => {
    const ports: number[] = [];
    for (const svc of ['frontend', 'history', 'matching', 'worker'] as const) {
      for (const [k, off] of Object.entries(PORT_OFFSETS[svc])) {
        expect(rendered.services[svc].rpc[k]).toBe(7633 + off);
        ports.push(rendered.services[svc].rpc[k]);
      }
    }
    expect(rendered.global.metrics.prometheus.listenAddress).toBe(`127.0.0.1:${7633 + PORT_OFFSETS.metrics}`);
    ports.push(7633 + PORT_OFFSETS.metrics);
    expect(new Set(ports).size).toBe(ports.length);
    expect(Math.max(...ports)).toBeLessThanOrEqual(7633 + 10);
    expect(rendered.global.pprof.port).toBe(0);
    expect(rendered.clusterMetadata.clusterInformation.active.rpcAddress).toBe('127.0.0.1:7633');
  });

  it('points both stores at the stack PostgreSQL and the project dynamic config, leaving the rest as shipped', () => {
    const stores: [string, string][] = [
      ['postgres-default', 'temporal'],
      ['postgres-visibility', 'temporal_visibility'],
    ];
    for (const [store, db] of stores) {
      expect(rendered.persistence.datastores[store].sql).toMatchObject({
        pluginName: 'postgres12',
        connectAddr: '127.0.0.1:55432',
        databaseName: db,
        user: 'temporal',
        password: 'temporal',
      });
    }
    expect(rendered.dynamicConfigClient.filepath).toBe('/x/dyn.yaml');
    expect(rendered.persistence.numHistoryShards).toBe(4);
    expect(rendered.services.frontend.rpc.bindOnLocalHost).toBe(true);
  });

  it('refuses a config of another shape instead of starting a server on the default ports', () => {
    expect(() =>
      renderTemporalConfig('persistence: {}\n', { temporalPort: 7633, pgPort: 1, dynamicConfigFile: 'f' }),
    ).toThrow(/has no persistence.datastores/);
  });
});
