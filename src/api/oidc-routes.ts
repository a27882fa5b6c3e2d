import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GateError } from '../client/gate-error';
import type { OidcVerifier } from './oidc';

// The reviewer page's sign-in: the OpenID Connect authorization-code flow with PKCE, run by
// the API as the relying party. The person signs in at the IdP; the API exchanges the code
// for an ID token, verifies it, and hands it to the page in the URL fragment (never sent to
// a server, not logged), where it is used as the bearer token like a reviewer key.
// No server-side session: state, nonce and the PKCE verifier ride in a short-lived HttpOnly
// cookie, so any API process can finish a sign-in another one started.

const COOKIE = 'gate_oidc';
const COOKIE_TTL_SECONDS = 600;

const b64url = (bytes: number): string => randomBytes(bytes).toString('base64url');

function cookieOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

function setCookie(reply: FastifyReply, value: string, maxAge: number, secure: boolean): void {
  const attrs = [`${COOKIE}=${value}`, 'Path=/auth', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`];
  if (secure) attrs.push('Secure');
  void reply.header('set-cookie', attrs.join('; '));
}

/** `/auth/oidc` (is sign-in on?), `/auth/login` (to the IdP) and `/auth/callback` (back, with the code). */
export function oidcRoutes(app: FastifyInstance, verifier: OidcVerifier | undefined): void {
  const s = verifier?.settings;
  const enabled = !!(verifier && s?.clientId && s.redirectUri);
  app.get('/auth/oidc', async () => ({ enabled, ...(enabled ? { issuer: s!.issuer } : {}) }));
  if (!verifier || !enabled) return;
  const settings = verifier.settings;
  const redirectUri = settings.redirectUri!;
  const secure = redirectUri.startsWith('https:');

  app.get('/auth/login', async (_req, reply) => {
    const meta = await verifier.metadata();
    const state = b64url(24);
    const nonce = b64url(24);
    const codeVerifier = b64url(32);
    const url = new URL(meta.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: settings.clientId!,
      redirect_uri: redirectUri,
      scope: settings.scopes,
      state,
      nonce,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    setCookie(reply, `${state}.${nonce}.${codeVerifier}`, COOKIE_TTL_SECONDS, secure);
    return reply.redirect(url.toString(), 302);
  });

  app.get<{ Querystring: Record<string, string | undefined> }>('/auth/callback', async (req, reply) => {
    const q = req.query;
    const [state, nonce, codeVerifier] = (cookieOf(req) ?? '').split('.');
    setCookie(reply, '', 0, secure); // one use, whatever happens next
    if (q.error)
      throw new GateError(
        401,
        'sign_in_refused',
        `the identity provider refused the sign-in: ${q.error}${q.error_description ? ` (${q.error_description})` : ''}`,
      );
    if (!state || !nonce || !codeVerifier)
      throw new GateError(
        400,
        'sign_in_expired',
        'no sign-in is under way in this browser (or it took over 10 minutes); start again at /auth/login',
      );
    if (q.state !== state)
      throw new GateError(400, 'sign_in_mismatch', 'the sign-in state does not match; start again at /auth/login');
    if (!q.code) throw new GateError(400, 'sign_in_mismatch', 'the identity provider sent no code');
    const meta = await verifier.metadata();
    const idToken = await exchange(meta.token_endpoint, settings, redirectUri, q.code, codeVerifier);
    await verifier.verify(idToken, { nonce }); // the page gets only a token the API itself accepts
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    return reply.redirect(`/#id_token=${encodeURIComponent(idToken)}`, 302);
  });
}

async function exchange(
  tokenEndpoint: string,
  settings: OidcVerifier['settings'],
  redirectUri: string,
  code: string,
  codeVerifier: string,
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: codeVerifier,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (settings.clientSecret) {
    // RFC 6749 section 2.3.1: form-encode id and secret before joining them.
    const basic = `${encodeURIComponent(settings.clientId!)}:${encodeURIComponent(settings.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  } else {
    form.set('client_id', settings.clientId!);
  }
  let res: Response;
  try {
    res = await fetch(tokenEndpoint, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new GateError(503, 'oidc_unavailable', `the token endpoint could not be reached: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as {
    id_token?: unknown;
    error?: string;
    error_description?: string;
  };
  if (!res.ok || typeof body.id_token !== 'string')
    throw new GateError(
      401,
      'sign_in_refused',
      `the token endpoint answered ${res.status}: ${body.error ?? 'no id_token'}${body.error_description ? ` (${body.error_description})` : ''}`,
    );
  return body.id_token;
}
