import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from './ports';

const SCRIPT = path.join(__dirname, 'oidc-idp-server.mjs');

/** A person the test IdP knows: the login typed into its form is the subject. */
export interface IdpAccount {
  name?: string;
  roles?: string[];
}

/** A running `oidc-provider` process on 127.0.0.1. */
export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  stop(): Promise<void>;
}

/**
 * Starts the real OpenID provider of `oidc-idp-server.mjs` with one confidential client whose only
 * redirect URI is `redirectUri`, and resolves once it listens. Throws with its output if
 * it exits or stays silent for 15 s.
 */
export async function startIdp(o: {
  redirectUri: string;
  accounts: Record<string, IdpAccount>;
  idTokenTtlSeconds?: number;
}): Promise<TestIdp> {
  const port = await freePort();
  const clientId = 'approval-gate-page';
  const clientSecret = 'test-client-secret-not-used-elsewhere';
  const cfg = {
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [o.redirectUri],
    accounts: o.accounts,
    id_token_ttl: o.idTokenTtlSeconds,
  };
  const child = spawn(process.execPath, [SCRIPT, String(port), JSON.stringify(cfg)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the test IdP did not start in 15 s:\n${out}`)), 15_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /^ready (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the test IdP exited with ${code}:\n${out}`));
    });
  });
  return {
    issuer,
    clientId,
    clientSecret,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
