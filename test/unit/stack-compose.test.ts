import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/common/search-attributes';
import {
  DYNAMIC_CONFIG_FILE,
  GATE_PROCESS_ENV,
  PG_DATABASES,
  PG_ROLE,
  PG_SERVER_SETTINGS,
  SCHEMA_DIRS,
  STACK_WORKERS,
  TEMPORAL_SERVER_VERSION,
  gateProcessEnv,
  stackSettings,
} from '../../src/stack/settings';

// docker-compose.yml and `gate stack` describe one deployment: this test fails when they drift.
const ROOT = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const compose: any = YAML.parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
const services = compose.services;
const script = (svc: string): string => (services[svc].entrypoint as string[]).join('\n');

describe('docker-compose.yml and gate stack', () => {
  it('run the same Temporal server version, and its admin tools of that version', () => {
    expect(services.temporal.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    expect(services['temporal-setup'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    const installer = fs.readFileSync(path.join(ROOT, 'scripts', 'install-temporal-server.sh'), 'utf8');
    expect(installer).toContain(`TEMPORAL_SERVER_VERSION:-${TEMPORAL_SERVER_VERSION}`);
  });

  it('give the server the same dynamic config file', () => {
    const relative = `./${path.relative(ROOT, DYNAMIC_CONFIG_FILE)}`;
    const mount = (services.temporal.volumes as string[]).find((v) => v.startsWith(`${relative}:`));
    expect(mount).toBeDefined();
    expect(services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH).toBe(mount!.split(':')[1]);
    expect(fs.existsSync(DYNAMIC_CONFIG_FILE)).toBe(true);
  });

  it('keep persistence and visibility on PostgreSQL in the same databases, with the same schema steps', () => {
    expect(services.temporal.environment).toMatchObject({
      DB: 'postgres12',
      POSTGRES_USER: PG_ROLE.user,
      POSTGRES_PWD: PG_ROLE.password,
      DBNAME: PG_DATABASES.temporal,
      VISIBILITY_DBNAME: PG_DATABASES.visibility,
    });
    const steps = script('temporal-schema');
    expect(services['temporal-schema'].environment.SQL_PLUGIN).toBe('postgres12');
    expect(steps).toContain(`for db in ${PG_DATABASES.temporal} ${PG_DATABASES.visibility}`);
    expect(steps).toContain('create-database');
    expect(steps).toContain('setup-schema -v 0.0');
    for (const dir of Object.values(SCHEMA_DIRS))
      expect(dir).toMatch(/^schema\/postgresql\/v12\/(temporal|visibility)\/versioned$/);
    expect(steps).toContain('update-schema --schema-dir "/etc/temporal/schema/postgresql/v12/$$dir/versioned"');
  });

  it("start PostgreSQL with the same server settings, and GATE_STACK_PG_SETTINGS adds to gate stack's", () => {
    const command = services.postgresql.command as string[];
    expect(command[0]).toBe('postgres');
    const given = Object.fromEntries(
      command
        .slice(1)
        .filter((a) => a !== '-c')
        .map((a) => a.split('=') as [string, string]),
    );
    expect(given).toEqual(PG_SERVER_SETTINGS);
    expect(stackSettings({}).pgSettings).toEqual(PG_SERVER_SETTINGS);
    expect(stackSettings({ GATE_STACK_PG_SETTINGS: ' shared_buffers=4GB  work_mem=64MB ' }).pgSettings).toEqual({
      ...PG_SERVER_SETTINGS,
      shared_buffers: '4GB',
      work_mem: '64MB',
    });
    expect(() => stackSettings({ GATE_STACK_PG_SETTINGS: 'shared_buffers=1GB;drop' })).toThrow(/not name=value/);
  });

  it('register the default namespace and exactly the gate search attributes', () => {
    const setup = script('temporal-setup');
    expect(setup).toContain('namespace create -n default');
    const listed = /for sa in ([^;]+);/.exec(setup)![1]!.trim().split(/\s+/);
    expect(listed.sort()).toEqual(Object.values(SEARCH_ATTRIBUTE_NAMES).sort());
  });

  it(`run ${STACK_WORKERS} workers and the API with the same environment names and values`, () => {
    expect(services.worker.deploy.replicas).toBe(STACK_WORKERS);
    const stack = gateProcessEnv(stackSettings({}), {});
    for (const svc of ['worker', 'api']) {
      const env = services[svc].environment as Record<string, string>;
      for (const name of GATE_PROCESS_ENV) expect(Object.keys(env)).toContain(name);
      expect(env.TEMPORAL_NAMESPACE).toBe(stack.TEMPORAL_NAMESPACE);
      expect(env.GATE_TASK_QUEUE).toBe(stack.GATE_TASK_QUEUE);
      // Same role, password and database; only the host differs (a container name, not 127.0.0.1).
      const want = new URL(stack.GATE_DATABASE_URL);
      const got = new URL(env.GATE_DATABASE_URL!);
      expect([got.username, got.password, got.pathname]).toEqual([want.username, want.password, want.pathname]);
    }
    expect(Object.keys(stack).sort()).toEqual([...GATE_PROCESS_ENV, 'GATE_PORT', 'GATE_HOST'].sort());
    expect(services.api.environment.GATE_PORT).toBe(stack.GATE_PORT);
  });
});
