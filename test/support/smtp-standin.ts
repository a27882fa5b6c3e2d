import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

// A local SMTP server for tests (smtp-server on loopback): it takes mail as a real relay
// does (EHLO, optional AUTH PLAIN/LOGIN, MAIL FROM, RCPT TO, DATA), parses each message
// with mailparser and records it. Use `url` as GATE_SMTP_URL.

/** One mail as received: the envelope, the raw message and its parsed headers and parts. */
export interface StandinMail {
  envelope: { from: string; to: string[] };
  /** The AUTH user the client signed in as, if any. */
  user?: string;
  raw: string;
  parsed: ParsedMail;
  /** Shortcuts into `parsed`. */
  messageId?: string;
  inReplyTo?: string;
  references: string[];
  subject?: string;
  text?: string;
  html?: string;
}

export interface SmtpStandin {
  /** `smtp://user:pass@127.0.0.1:<port>` (or without credentials when the stand-in takes none). */
  url: string;
  host: string;
  port: number;
  mails: StandinMail[];
  /** Reject every mail from now on (554 at MAIL FROM), or accept again (false). */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

const addr = (a: SMTPServerAddress | false): string => (a ? a.address : '');

/**
 * Starts the stand-in on a free loopback port. With `auth`, it requires that user and
 * password (so a test proves the credentials in GATE_SMTP_URL are used); without, it takes
 * mail from anyone. No STARTTLS is offered: the connection stays plain on loopback.
 */
export async function startSmtpStandin(opts: { auth?: { user: string; pass: string } } = {}): Promise<SmtpStandin> {
  const mails: StandinMail[] = [];
  let refusing = false;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.auth,
    allowInsecureAuth: true, // plain AUTH over loopback, only in tests
    logger: false,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        return cb(null, { user: auth.username });
      return cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, cb) {
      if (refusing) return cb(Object.assign(new Error('Mail refused by the stand-in'), { responseCode: 554 }));
      return cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString();
        simpleParser(raw)
          .then((parsed) => {
            const refs = parsed.references;
            mails.push({
              envelope: { from: addr(session.envelope.mailFrom), to: session.envelope.rcptTo.map(addr) },
              user: typeof session.user === 'string' ? session.user : undefined,
              raw,
              parsed,
              messageId: parsed.messageId,
              inReplyTo: parsed.inReplyTo,
              references: refs === undefined ? [] : Array.isArray(refs) ? refs : [refs],
              subject: parsed.subject,
              text: parsed.text,
              html: typeof parsed.html === 'string' ? parsed.html : undefined,
            });
            cb();
          })
          .catch((err: Error) => cb(err));
      });
    },
  });
  server.on('error', () => undefined); // a client that drops the connection is not the test's failure
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const cred = opts.auth ? `${encodeURIComponent(opts.auth.user)}:${encodeURIComponent(opts.auth.pass)}@` : '';
  return {
    url: `smtp://${cred}127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    mails,
    refuse: (on) => void (refusing = on),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
