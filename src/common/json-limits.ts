/**
 * JSON numbers that do not survive the trip: `1e400` parses to Infinity (which has no JSON
 * form, so it would reach the workflow as `null`), and an integer past 2^53 is silently
 * rounded (`12345678901234567890` runs as `12345678901234567000`). Either way what runs is
 * not what was sent, so such a body is refused instead.
 */

/** Why a parsed number cannot be taken as sent, or null when it can. */
export function numberProblem(n: number): string | null {
  if (!Number.isFinite(n)) return 'is too large to represent (it would become Infinity or null)';
  if (Number.isInteger(n) && !Number.isSafeInteger(n))
    return 'is an integer beyond 2^53 and would be rounded; send it as a string';
  return null;
}

/** Paths (`$.args.amount`) of numbers inside `value` that cannot be taken as sent, each with why. */
export function unrepresentableNumbers(value: unknown, path = '$'): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const visit = (v: unknown, p: string): void => {
    if (typeof v === 'number') {
      const problem = numberProblem(v);
      if (problem) out.push({ path: p, message: `the number ${problem}` });
    } else if (Array.isArray(v)) v.forEach((item, i) => visit(item, `${p}[${i}]`));
    else if (v !== null && typeof v === 'object')
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) visit(child, `${p}.${k}`);
  };
  visit(value, path);
  return out;
}

/** Deepest nesting a request body may have; evidence is shallow, and recursion over it must stay far from the stack limit. */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of JSON text (brackets outside strings), scanned in one pass before it is parsed. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
