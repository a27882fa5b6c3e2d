import { isIP } from 'node:net';

/**
 * Which proxies the API believes about the client's address (`X-Forwarded-For`), as
 * fastify's `trustProxy` takes it: `false` (the socket's address, the default), `true`
 * (any sender: only when nothing but the proxy can reach the API), or the addresses and
 * CIDR ranges of the proxies. No hop count: it cannot tell the proxy from a client that
 * connects directly and writes the header itself (fastify 5 refuses to trust one).
 */
export type TrustProxy = boolean | string[];

/**
 * Parses GATE_TRUST_PROXY: unset, `false` or `0` trust no proxy; `true` trusts any;
 * otherwise a comma-separated list of IP addresses and CIDR ranges (`127.0.0.1,10.0.0.0/8`).
 * Throws naming the variable and the bad entry.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const v = (raw ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v))
    throw new Error(
      `GATE_TRUST_PROXY=${v}: a hop count cannot tell the proxy from a client that sends the header itself; name the proxies' addresses (10.0.0.5,10.1.0.0/16)`,
    );
  const entries = v.split(',').map((s) => s.trim());
  for (const e of entries) {
    const [addr, bits, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const badBits = bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits);
    if (family === 0 || badBits || extra !== undefined)
      throw new Error(
        `GATE_TRUST_PROXY=${v}: "${e}" is not an IP address or CIDR range; give true, false, or addresses such as 127.0.0.1,10.0.0.0/8`,
      );
  }
  return entries;
}
