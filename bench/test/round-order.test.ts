import { inTurn } from '../stats';

describe('inTurn: the order two kinds take in a bench round', () => {
  it('keeps the given order in even rounds and reverses it in odd ones', () => {
    expect(inTurn(['bare', 'gate'] as const, 0)).toEqual(['bare', 'gate']);
    expect(inTurn(['bare', 'gate'] as const, 1)).toEqual(['gate', 'bare']);
    expect(inTurn(['bare', 'gate'] as const, 2)).toEqual(['bare', 'gate']);
  });

  it('puts each kind first equally often over an even number of rounds', () => {
    const firsts = Array.from({ length: 6 }, (_, r) => inTurn(['bare', 'gate'] as const, r)[0]);
    expect(firsts.filter((k) => k === 'gate')).toHaveLength(3);
    expect(firsts.filter((k) => k === 'bare')).toHaveLength(3);
  });

  it('does not change the array it is given', () => {
    const kinds = ['bare', 'gate'] as const;
    inTurn(kinds, 1);
    expect(kinds).toEqual(['bare', 'gate']);
  });
});
