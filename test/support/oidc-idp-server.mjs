// @ts-check
// A real OpenID Connect provider (the `oidc-provider` package, 8.x: the newest major that supports Node 20) for the sign-in tests, run as
// its own process because the package is ESM-only and jest runs the suite as CommonJS.
//
//   node test/support/oidc-idp-server.mjs <port> <config-json>
//
// config: { client_id, client_secret, redirect_uris: [...], accounts: { <sub>: { name, roles } } }
// Its development login form (`devInteractions`) takes any login and password: the login is
// the subject. Prints "ready <issuer>" once it listens on 127.0.0.1.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.argv[2]);
/** @type {{ client_id: string, client_secret: string, redirect_uris: string[], accounts: Record<string, { name?: string, roles?: string[] }>, id_token_ttl?: number }} */
const cfg = JSON.parse(process.argv[3] ?? '{}');
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: cfg.client_id,
      client_secret: cfg.client_secret,
      redirect_uris: cfg.redirect_uris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  // Roles travel in the ID token itself: the gate reads them from there, not from userinfo.
  conformIdTokenClaims: false,
  claims: { openid: ['sub'], profile: ['name'], roles: ['roles'] },
  scopes: ['openid', 'profile', 'roles'],
  pkce: { required: () => true },
  ttl: { IdToken: cfg.id_token_ttl ?? 600 },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['approval-gate-test-idp'] },
  async findAccount(_ctx, sub) {
    const account = cfg.accounts[sub];
    if (!account) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, name: account.name ?? sub, roles: account.roles ?? [] };
      },
    };
  },
});
provider.on('server_error', (_ctx, err) => process.stderr.write(`oidc server_error: ${err.stack ?? err}\n`));

const server = createServer(provider.callback());
server.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${issuer}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
