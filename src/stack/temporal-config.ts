import YAML from 'yaml';
import { PG_DATABASES, PG_ROLE } from './settings';

/**
 * The server's other ports, as offsets from the frontend's gRPC port, so that one
 * variable (GATE_STACK_TEMPORAL_PORT) moves the whole server off the ports a dev
 * server or a second stack uses.
 */
export const PORT_OFFSETS = {
  frontend: { grpcPort: 0, membershipPort: 4, httpPort: 8 },
  history: { grpcPort: 1, membershipPort: 5 },
  matching: { grpcPort: 2, membershipPort: 6 },
  worker: { grpcPort: 3, membershipPort: 7 },
  metrics: 9,
} as const;

export interface TemporalConfigOptions {
  temporalPort: number;
  pgPort: number;
  dynamicConfigFile: string;
}

type Node = Record<string, unknown>;

function at(root: Node, keys: string[]): Node {
  let cur: unknown = root;
  for (const k of keys) {
    if (!cur || typeof cur !== 'object' || !(k in cur))
      throw new Error(`the server's config has no ${keys.join('.')} (is it development-postgres12.yaml?)`);
    cur = (cur as Node)[k];
  }
  if (!cur || typeof cur !== 'object') throw new Error(`${keys.join('.')} is not a mapping`);
  return cur as Node;
}

/**
 * The module's `config/development-postgres12.yaml` with only what a local cluster must
 * change: every port (from GATE_STACK_TEMPORAL_PORT and GATE_STACK_PG_PORT), pprof off,
 * and the project's dynamic config file. Everything else (shards, pools, membership)
 * stays as the server's authors ship it. Throws when the shape is not the expected one.
 */
export function renderTemporalConfig(moduleYaml: string, o: TemporalConfigOptions): string {
  const doc = YAML.parse(moduleYaml) as Node;
  const p = o.temporalPort;
  for (const name of ['postgres-default', 'postgres-visibility'] as const) {
    const sql = at(doc, ['persistence', 'datastores', name, 'sql']);
    sql.connectAddr = `127.0.0.1:${o.pgPort}`;
    sql.user = PG_ROLE.user;
    sql.password = PG_ROLE.password;
    sql.databaseName = name === 'postgres-default' ? PG_DATABASES.temporal : PG_DATABASES.visibility;
  }
  for (const svc of ['frontend', 'history', 'matching', 'worker'] as const) {
    const rpc = at(doc, ['services', svc, 'rpc']);
    for (const [k, off] of Object.entries(PORT_OFFSETS[svc])) {
      if (!(k in rpc)) throw new Error(`services.${svc}.rpc has no ${k}`);
      rpc[k] = p + off;
    }
  }
  at(doc, ['global', 'pprof']).port = 0; // 0: no pprof listener
  at(doc, ['global', 'metrics', 'prometheus']).listenAddress = `127.0.0.1:${p + PORT_OFFSETS.metrics}`;
  at(doc, ['clusterMetadata', 'clusterInformation', 'active']).rpcAddress = `127.0.0.1:${p}`;
  at(doc, ['dynamicConfigClient']).filepath = o.dynamicConfigFile;
  at(doc, ['log']).level = 'warn';
  return YAML.stringify(doc);
}
