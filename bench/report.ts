// Output: one line per figure on stdout (numbers, ratio against the baseline measured in
// the same run, target, PASS/FAIL), then a summary; the exit code follows the verdicts.

export type Unit = '/s' | 'ms' | 'MiB' | '';

/** A target on a ratio or an absolute value: `op value`. */
export interface Target {
  op: '>=' | '<=' | '<' | '==';
  value: number;
}

export type Verdict = 'PASS' | 'FAIL' | 'info';

const NAME_WIDTH = 46;

export function fmt(v: number, unit: Unit): string {
  if (!Number.isFinite(v)) return `n/a${unit ? ` ${unit.trim()}` : ''}`;
  switch (unit) {
    case '/s':
      return `${v.toFixed(1)}/s`;
    case 'ms':
      return `${v.toFixed(1)} ms`;
    case 'MiB':
      return `${v.toFixed(0)} MiB`;
    default:
      return String(Math.round(v * 100) / 100);
  }
}

function meets(v: number, t: Target): boolean {
  if (!Number.isFinite(v)) return false;
  switch (t.op) {
    case '>=':
      return v >= t.value;
    case '<=':
      return v <= t.value;
    case '<':
      return v < t.value;
    case '==':
      return v === t.value;
  }
}

/** Collects the verdicts; prints each line as it is known, so a long run shows progress. */
export class Report {
  private readonly counts = { PASS: 0, FAIL: 0, info: 0 };
  private readonly errors: string[] = [];

  constructor(private readonly out: (line: string) => void = (l) => console.log(l)) {}

  line(text: string): void {
    this.out(text);
  }

  /**
   * `a` against the baseline `b` measured in the same run; the target applies to a / b.
   * Labels default to gate / bare.
   */
  ratio(
    name: string,
    a: number,
    b: number,
    unit: Unit,
    target?: Target,
    labels: [string, string] = ['gate', 'bare'],
  ): Verdict {
    const r = a / b;
    const ratioText = Number.isFinite(r) ? r.toFixed(2) : 'n/a';
    return this.emit(
      name,
      `${labels[0]} ${fmt(a, unit)}  ${labels[1]} ${fmt(b, unit)}  ratio ${ratioText}`,
      r,
      target,
      target ? target.value.toFixed(2) : '',
    );
  }

  /** An absolute figure; the target applies to `v` itself. */
  value(name: string, v: number, unit: Unit, target?: Target, extra = ''): Verdict {
    const targetText = !target
      ? ''
      : Number.isInteger(target.value)
        ? `${target.value}${unit && unit !== '/s' ? ` ${unit}` : unit}`
        : fmt(target.value, unit);
    return this.emit(name, `${fmt(v, unit)}${extra ? `  ${extra}` : ''}`, v, target, targetText);
  }

  /** A line with no target: context for the figures around it. */
  info(name: string, text: string): void {
    this.out(`${name.padEnd(NAME_WIDTH)}${text}  info`);
    this.counts.info++;
  }

  error(section: string, err: unknown): void {
    const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.errors.push(section);
    this.out(`${`${section}.ERROR`.padEnd(NAME_WIDTH)}${msg.split('\n').slice(0, 6).join('\n    ')}`);
  }

  /** Prints the summary and returns the exit code: 2 on an error, 1 on a FAIL, else 0. */
  summary(): number {
    const { PASS, FAIL, info } = this.counts;
    this.out('');
    this.out(
      `summary: ${PASS} PASS, ${FAIL} FAIL, ${info} info${this.errors.length ? `, ${this.errors.length} ERROR (${this.errors.join(', ')})` : ''}`,
    );
    return this.errors.length > 0 ? 2 : FAIL > 0 ? 1 : 0;
  }

  private emit(name: string, text: string, v: number, target: Target | undefined, targetText: string): Verdict {
    if (!target) {
      this.info(name, text);
      return 'info';
    }
    const verdict: Verdict = meets(v, target) ? 'PASS' : 'FAIL';
    this.counts[verdict]++;
    this.out(`${name.padEnd(NAME_WIDTH)}${text}  target ${target.op} ${targetText}  ${verdict}`);
    return verdict;
  }
}
