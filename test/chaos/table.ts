import { FAULT_LABELS } from './faults';
import type { CellResult } from './engine';

const BOUNDARY_LABELS: Record<string, string> = {
  created: 'created',
  decided: 'decided',
  rechecked: 're-checked',
  tool_started: 'tool started',
  effect_written: 'tool effect written',
  result_recorded: 'result recorded',
};

/** The chaos table as Markdown: one row per cell, then the totals. */
export function chaosTable(cells: CellResult[]): string {
  const rows = [
    '| fault | boundary | trials | lost gates | double effects | stuck gates | wrong outcomes |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const c of cells)
    rows.push(
      `| ${FAULT_LABELS[c.fault]} | ${BOUNDARY_LABELS[c.boundary]} | ${c.trials} | ${c.lost} | ${c.double} | ${c.stuck} | ${c.wrong} |`,
    );
  const sum = (k: 'trials' | 'lost' | 'double' | 'stuck' | 'wrong'): number => cells.reduce((a, c) => a + c[k], 0);
  rows.push(`| **all** | | ${sum('trials')} | ${sum('lost')} | ${sum('double')} | ${sum('stuck')} | ${sum('wrong')} |`);
  return rows.join('\n');
}
