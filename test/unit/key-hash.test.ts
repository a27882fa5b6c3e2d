import { keyHash, sameHash } from '../../src/store/key-store';

describe('sameHash (constant-time digest equality)', () => {
  const h = keyHash('gk_agent_example');

  it('is true only for the identical digest', () => {
    expect(sameHash(h, h)).toBe(true);
    expect(sameHash(keyHash('gk_agent_other'), h)).toBe(false);
    expect(sameHash(h.slice(0, -1) + (h.endsWith('0') ? '1' : '0'), h)).toBe(false);
  });

  it('is false for a missing, differently sized or non-string stored value, without throwing', () => {
    expect(sameHash(null, h)).toBe(false);
    expect(sameHash(undefined, h)).toBe(false);
    expect(sameHash(h.slice(1), h)).toBe(false);
    expect(sameHash(42, h)).toBe(false);
  });
});
