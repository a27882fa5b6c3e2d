import { ceilingText, cpuCeiling } from '../cpu';

describe('the bench CPU ceiling', () => {
  it('is the bare CPU over the gate CPU, bench process and server together', () => {
    expect(cpuCeiling({ bench: 15, server: 19 }, { bench: 3, server: 10.6 })).toBeCloseTo(0.4, 5);
    expect(cpuCeiling({ bench: 5, server: 5 }, { bench: 5, server: 5 })).toBe(1);
  });

  it('is not a number without the server CPU (an external server)', () => {
    expect(cpuCeiling({ bench: 15, server: NaN }, { bench: 3, server: NaN })).toBeNaN();
    expect(ceilingText({ bench: 15, server: NaN }, { bench: 3, server: NaN })).toMatch(/^n\/a/);
  });

  it('prints the ratio with two decimals', () => {
    expect(ceilingText({ bench: 20, server: 20 }, { bench: 10, server: 20 })).toMatch(/^0\.75 \(bare CPU \/ gate CPU/);
  });
});
