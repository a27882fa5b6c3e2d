import { ConfigurationError } from '../../src/common/errors';
import { FailureType, isFailureType } from '../../src/common/failure-types';
import { NoticeFailureType, notifyTargets, targetProblem } from '../../src/common/notice';
import { checkNotifyConfig, DEFAULT_SLACK_API_URL, notifySettingsFrom } from '../../src/notify/config';
import { loadConfig } from '../../src/config';

const TOKEN = 'xoxb-1234-secret-token';
const SMTP = 'smtps://mailer:s3cret-pass@smtp.example.com:465';
const TEAMS = 'finance=https://example.webhook.office.com/webhookb2/abc-secret-path';
const full = {
  GATE_PUBLIC_URL: 'https://gate.example.com',
  GATE_SLACK_BOT_TOKEN: TOKEN,
  GATE_SMTP_URL: SMTP,
  GATE_EMAIL_FROM: 'gate@example.com',
  GATE_TEAMS_WEBHOOKS: TEAMS,
  GATE_NOTIFY: 'slack:#approvals, email:leads@example.com,teams:finance',
};

function refusal(env: Record<string, string>): string {
  try {
    checkNotifyConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('checkNotifyConfig accepted the settings');
}

describe('checkNotifyConfig', () => {
  it('accepts no notification settings at all, and a complete set', () => {
    expect(() => checkNotifyConfig({})).not.toThrow();
    expect(() => checkNotifyConfig(full)).not.toThrow();
  });

  it.each(['GATE_SLACK_BOT_TOKEN', 'GATE_SMTP_URL', 'GATE_TEAMS_WEBHOOKS', 'GATE_NOTIFY'])(
    'refuses %s without GATE_PUBLIC_URL, naming both',
    (name) => {
      const env: Record<string, string> = { [name]: full[name as keyof typeof full] };
      if (name === 'GATE_SMTP_URL') env.GATE_EMAIL_FROM = full.GATE_EMAIL_FROM;
      const msg = refusal(env);
      expect(msg).toContain(name);
      expect(msg).toContain('GATE_PUBLIC_URL is not');
    },
  );

  it('refuses a GATE_NOTIFY target whose channel is not configured, naming the missing setting', () => {
    const base = { GATE_PUBLIC_URL: full.GATE_PUBLIC_URL };
    expect(refusal({ ...base, GATE_NOTIFY: 'slack:#approvals' })).toContain(
      'GATE_NOTIFY slack:#approvals: GATE_SLACK_BOT_TOKEN is not set',
    );
    expect(refusal({ ...base, GATE_NOTIFY: 'email:a@example.com' })).toContain('GATE_SMTP_URL is not set');
    expect(refusal({ ...base, GATE_TEAMS_WEBHOOKS: TEAMS, GATE_NOTIFY: 'teams:ops' })).toContain(
      'GATE_TEAMS_WEBHOOKS has no webhook named "ops"',
    );
    expect(refusal({ ...base, GATE_NOTIFY: 'pager:oncall' })).toContain('not a notification target');
    expect(refusal({ ...base, GATE_SLACK_BOT_TOKEN: TOKEN, GATE_NOTIFY: 'slack:@alice' })).toContain(
      'slack:@member-id',
    );
  });

  it('refuses malformed URLs and a mail setting without a From address', () => {
    expect(refusal({ ...full, GATE_PUBLIC_URL: 'gate.example.com' })).toContain(
      'GATE_PUBLIC_URL is not an http(s) URL',
    );
    expect(refusal({ ...full, GATE_SLACK_API_URL: 'ftp://x' })).toContain('GATE_SLACK_API_URL');
    expect(refusal({ ...full, GATE_SMTP_URL: 'http://mailer:s3cret-pass@smtp.example.com' })).toContain(
      'smtp:// or smtps://',
    );
    expect(refusal({ ...full, GATE_EMAIL_FROM: '' })).toContain('GATE_SMTP_URL is set but GATE_EMAIL_FROM is not');
    expect(refusal({ ...full, GATE_TEAMS_WEBHOOKS: 'finance' })).toContain(
      'GATE_TEAMS_WEBHOOKS entry 1 is not name=url',
    );
  });

  it('never repeats a secret in its refusal', () => {
    const msgs = [
      refusal({ GATE_SLACK_BOT_TOKEN: TOKEN, GATE_SMTP_URL: SMTP, GATE_TEAMS_WEBHOOKS: TEAMS }),
      refusal({ ...full, GATE_SMTP_URL: 'smtpx://mailer:s3cret-pass@smtp.example.com' }),
      refusal({ ...full, GATE_TEAMS_WEBHOOKS: 'finance=ftp://abc-secret-path' }),
    ];
    for (const m of msgs) expect(m).not.toMatch(/secret-token|s3cret-pass|abc-secret-path/);
  });

  it('is what loadConfig runs, so every process refuses the same settings at startup', () => {
    expect(() => loadConfig({ GATE_NOTIFY: 'slack:#approvals' })).toThrow(/GATE_PUBLIC_URL/);
    const cfg = loadConfig(full);
    expect(cfg.notify).toMatchObject({
      publicUrl: full.GATE_PUBLIC_URL,
      slackApiUrl: DEFAULT_SLACK_API_URL,
      notify: ['slack:#approvals', 'email:leads@example.com', 'teams:finance'],
    });
    expect(loadConfig({}).notify).toEqual(notifySettingsFrom({}));
  });
});

describe('notification failure types', () => {
  it('are in the wire catalogue under the names the activity throws', () => {
    expect(FailureType.NotificationDeliveryFailed).toBe(NoticeFailureType.DeliveryFailed);
    expect(FailureType.NotificationMisconfigured).toBe(NoticeFailureType.Misconfigured);
    expect(Object.values(NoticeFailureType).every(isFailureType)).toBe(true);
  });
});

describe('notification targets', () => {
  it('reads a comma-separated list once per target', () => {
    expect(notifyTargets(' slack:#a, email:b@example.com ,,slack:#a')).toEqual(['slack:#a', 'email:b@example.com']);
    expect(notifyTargets(undefined)).toEqual([]);
  });

  it('knows the forms of each channel', () => {
    for (const ok of ['slack:#finance-approvals', 'slack:@U012AB3CD', 'email:cfo@example.com', 'teams:finance'])
      expect(targetProblem(ok)).toBeUndefined();
    for (const bad of ['slack:finance', 'slack:@alice', 'email:cfo', 'email:a@b,c@d', 'teams:', 'sms:+1555'])
      expect(targetProblem(bad)).toBeDefined();
  });
});
