import { teamsWebhooks } from '../../common/notice';
import { teamsCard } from '../../notify/teams-card';
import type { NoticeSender, SenderDeps } from './sender';

/** Microsoft Teams: a new Adaptive Card on the named incoming webhook for every notice. */
export function createTeamsSender({ settings: s, timeoutMs, fetch: fetchFn, failed }: SenderDeps): NoticeSender {
  return async (input, publicUrl, cancelled) => {
    const name = input.target.slice('teams:'.length);
    const url = teamsWebhooks(s.teamsWebhooks).get(name)!;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), cancelled]);
    let status: number;
    let text: string;
    let retryAfterS: number | undefined;
    try {
      const res = await (fetchFn ?? fetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'approval-gate-notify' },
        body: JSON.stringify(teamsCard(input.kind, input.facts, publicUrl)),
        signal,
        redirect: 'manual',
      });
      status = res.status;
      retryAfterS = Number(res.headers.get('retry-after')) || undefined;
      text = await res.text().catch(() => '');
    } catch (err) {
      // Never the webhook's URL: it is the credential.
      throw failed(`teams webhook "${name}" unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
    // A classic connector answers 200 with an error text when Teams did not take the card.
    if (status < 200 || status >= 300 || /failed with error/i.test(text))
      throw failed(
        `teams webhook "${name}" answered HTTP ${status}${text ? ` ${JSON.stringify(text.slice(0, 200))}` : ''}`,
        { status },
        retryAfterS,
      );
    return { target: input.target, channel: 'teams' };
  };
}
