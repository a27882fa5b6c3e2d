import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A local receiver for Microsoft Teams incoming-webhook POSTs: each webhook is a URL that
// takes a JSON `{ type: 'message', attachments: [...] }` and answers 200 (`1`, as the
// connector does). It records each card; refusing, it answers HTTP 500.

export interface StandinCard {
  /** The webhook's name: the last path segment of its URL. */
  webhook: string;
  contentType: string;
  body: unknown;
  /** The Adaptive Card of the first attachment, if the body is a message with one. */
  card?: Record<string, unknown>;
}

export interface TeamsStandin {
  /** Base URL; `webhookUrl(name)` is one webhook under it. */
  url: string;
  webhookUrl(name: string): string;
  /** `name=url,...` for the given names: a GATE_TEAMS_WEBHOOKS value. */
  setting(...names: string[]): string;
  cards: StandinCard[];
  /** Answer every POST with HTTP 500 from now on, or accept again (false). */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

/** Starts the receiver on a free loopback port. */
export async function startTeamsStandin(): Promise<TeamsStandin> {
  const cards: StandinCard[] = [];
  let refusing = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      if (refusing)
        return void res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end('Microsoft Teams endpoint returned HTTP error 500');
      const contentType = String(req.headers['content-type'] ?? '');
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        return void res
          .writeHead(400, { 'content-type': 'text/plain' })
          .end('Bad payload received by generic incoming webhook.');
      }
      const attachment = (body as { attachments?: { content?: Record<string, unknown> }[] }).attachments?.[0];
      cards.push({ webhook: (req.url ?? '').split('/').pop() ?? '', contentType, body, card: attachment?.content });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('1');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const webhookUrl = (name: string): string => `${url}/webhookb2/${encodeURIComponent(name)}`;
  return {
    url,
    webhookUrl,
    setting: (...names) => names.map((n) => `${n}=${webhookUrl(n)}`).join(','),
    cards,
    refuse: (on) => void (refusing = on),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
