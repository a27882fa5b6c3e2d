import nodemailer, { type Transporter } from 'nodemailer';
import { emailMessage, emailMessageId, rootMessageId } from '../../notify/email-message';
import type { NoticeSender, SenderDeps } from './sender';

/**
 * Email over SMTP (GATE_SMTP_URL): one mail per notice, with a Message-ID derived from the
 * request; every mail after the request's first replies to it.
 */
export function createEmailSender({ settings: s, timeoutMs, failed }: SenderDeps): NoticeSender {
  let mailer: Transporter | undefined;
  const mailTransport = (): Transporter =>
    (mailer ??= nodemailer.createTransport({
      url: s.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      logger: false,
    }));

  return async (input, publicUrl) => {
    const to = input.target.slice('email:'.length);
    const m = emailMessage(input.kind, input.facts, publicUrl);
    const messageId = emailMessageId(input.kind, input.facts, publicUrl);
    const root = rootMessageId(input.facts.request_id, publicUrl);
    const parent = input.thread?.email?.message_id ?? root;
    const replyTo = input.kind === 'requested' ? {} : { inReplyTo: parent, references: [...new Set([root, parent])] };
    try {
      // The same Message-ID on every attempt: a mail sent twice (an attempt that timed out after
      // the server took it) is recognisably one message.
      await mailTransport().sendMail({ from: s.emailFrom, to, ...m, messageId, ...replyTo });
    } catch (err) {
      const e = err as { message?: string; responseCode?: number; code?: string };
      throw failed(`email to ${to} failed: ${e.message ?? String(err)}`, {
        code: e.code ?? null,
        responseCode: e.responseCode ?? null,
      });
    }
    return { target: input.target, channel: 'email', thread: { email: { message_id: root } } };
  };
}
