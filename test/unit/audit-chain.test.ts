import { AuditEvent, chainEvent, verifyChain, type AuditEventFields } from '../../src/common/audit';
import { digest } from '../../src/common/hashing';

const SHA = 'a'.repeat(64);

function fields(i: number, over: Partial<AuditEventFields> = {}): AuditEventFields {
  return {
    event_id: `evt_${i}`,
    request_id: 'appr_1',
    event_type: ['approval.requested', 'approval.vote_recorded', 'approval.approved', 'approval.consumed'][i % 4]!,
    actor_type: i === 0 ? 'agent' : 'human',
    actor_id: i === 0 ? 'agent_1' : `reviewer_${i}`,
    payload_sha256: SHA,
    note: i === 0 ? 'summary' : null,
    timestamp: `2030-01-01T00:00:0${i}.000Z`,
    data: { i },
    ...over,
  };
}

function build(n: number): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (let i = 0; i < n; i++) out.push(chainEvent(out[i - 1], fields(i)));
  return out;
}

const clone = (events: AuditEvent[]): AuditEvent[] => structuredClone(events);

describe('chainEvent', () => {
  it('starts the chain at seq 0 with no previous hash', () => {
    const e = chainEvent(undefined, fields(0));
    expect(e.seq).toBe(0);
    expect(e.prev_hash).toBeNull();
    const { hash, ...rest } = e;
    expect(hash).toBe(digest(rest));
    expect(AuditEvent.safeParse(e).success).toBe(true);
  });

  it('links each event to the one before by seq and hash', () => {
    const chain = build(4);
    chain.forEach((e, i) => {
      expect(e.seq).toBe(i);
      expect(e.prev_hash).toBe(i === 0 ? null : chain[i - 1]!.hash);
      expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
    });
    expect(new Set(chain.map((e) => e.hash)).size).toBe(4);
  });

  it('is deterministic: the same fields after the same event hash the same', () => {
    const a = build(3);
    const b = build(3);
    expect(b).toEqual(a);
  });

  it('does not let a caller choose seq or prev_hash', () => {
    const forged = { ...fields(1), seq: 99, prev_hash: 'x' } as AuditEventFields;
    const prev = chainEvent(undefined, fields(0));
    const e = chainEvent(prev, forged);
    expect(e.seq).toBe(1);
    expect(e.prev_hash).toBe(prev.hash);
    expect(verifyChain([prev, e]).ok).toBe(true);
  });
});

describe('verifyChain', () => {
  it.each([0, 1, 2, 5])('accepts a built chain of %i events', (n) => {
    expect(verifyChain(build(n))).toEqual({ ok: true, count: n });
  });

  it.each<{ name: string; tamper: (c: AuditEvent[]) => AuditEvent[]; index: number; reason: RegExp }>([
    {
      name: 'an altered note',
      tamper: (c) => {
        c[2]!.note = 'approved, honest';
        return c;
      },
      index: 2,
      reason: /altered/,
    },
    {
      name: 'altered data',
      tamper: (c) => {
        c[1]!.data = { i: 1, amount: 1_000_000 };
        return c;
      },
      index: 1,
      reason: /altered/,
    },
    {
      name: 'a changed actor',
      tamper: (c) => {
        c[2]!.actor_id = 'mallory';
        return c;
      },
      index: 2,
      reason: /altered/,
    },
    {
      name: 'a changed payload hash',
      tamper: (c) => {
        c[3]!.payload_sha256 = 'b'.repeat(64);
        return c;
      },
      index: 3,
      reason: /altered/,
    },
    {
      name: 'a removed event in the middle',
      tamper: (c) => {
        c.splice(1, 1);
        return c;
      },
      index: 1,
      reason: /seq/,
    },
    {
      name: 'a removed first event',
      tamper: (c) => c.slice(1),
      index: 0,
      reason: /seq/,
    },
    {
      name: 'swapped order',
      tamper: (c) => {
        [c[1], c[2]] = [c[2]!, c[1]!];
        return c;
      },
      index: 1,
      reason: /seq/,
    },
    {
      name: 'swapped order with renumbered seqs',
      tamper: (c) => {
        [c[1], c[2]] = [c[2]!, c[1]!];
        c[1]!.seq = 1;
        c[2]!.seq = 2;
        return c;
      },
      index: 1,
      reason: /does not point/,
    },
    {
      name: 'a forged hash',
      tamper: (c) => {
        c[3]!.hash = 'f'.repeat(64);
        return c;
      },
      index: 3,
      reason: /altered/,
    },
    {
      name: 'an altered event re-hashed on its own (the next link breaks)',
      tamper: (c) => {
        c[1]!.note = 'rewritten';
        const { hash: _old, ...rest } = c[1]!;
        c[1]!.hash = digest(rest);
        return c;
      },
      index: 2,
      reason: /does not point/,
    },
    {
      name: 'a duplicated event',
      tamper: (c) => {
        c.splice(2, 0, c[1]!);
        return c;
      },
      index: 2,
      reason: /seq/,
    },
    {
      name: 'a first event pointing at something',
      tamper: (c) => {
        c[0]!.prev_hash = 'e'.repeat(64);
        return c;
      },
      index: 0,
      reason: /does not point/,
    },
  ])('detects $name', ({ tamper, index, reason }) => {
    const r = verifyChain(tamper(clone(build(5))));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.index).toBe(index);
    expect(r.reason).toMatch(reason);
  });

  // Limits of a bare hash chain, documented so nobody relies on more: dropping the tail, or
  // rewriting and re-hashing everything, verifies. Anchoring the last hash (the workflow's
  // history, or a count stored elsewhere) is what catches those.
  it('cannot tell a truncated tail or a fully recomputed chain on its own', () => {
    expect(verifyChain(build(5).slice(0, 3)).ok).toBe(true);
    const rebuilt: AuditEvent[] = [];
    build(5).forEach((e, i) => rebuilt.push(chainEvent(rebuilt[i - 1], { ...fields(i), note: 'rewritten' })));
    expect(verifyChain(rebuilt).ok).toBe(true);
    expect(rebuilt[4]!.hash).not.toBe(build(5)[4]!.hash);
  });

  it('survives a JSON round trip (store and reload)', () => {
    const chain = build(4);
    expect(verifyChain(JSON.parse(JSON.stringify(chain)) as AuditEvent[]).ok).toBe(true);
  });
});
