/** Seconds per unit of `parseDuration`. */
const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parses a duration as a person types it on the command line: `90s`, `15m`, `24h`, `30d`,
 * or bare seconds (`3600`, `0`). Returns whole seconds; throws Error naming the value when
 * it is anything else (a negative number, `1.5h`, `1w`).
 */
export function parseDuration(text: string, what = 'duration'): number {
  const m = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!m) throw new Error(`${what} "${text}" is not a duration such as 90s, 15m, 24h, 30d or a number of seconds`);
  return Number(m[1]) * UNITS[m[2] || 's']!;
}
