import fs from 'node:fs';
import path from 'node:path';

export const DASHBOARD_FILE = path.resolve(__dirname, '..', '..', 'ops', 'grafana', 'approval-gate.json');

interface Panel {
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Every PromQL expression of the dashboard's panels (rows included). */
export function dashboardExpressions(): string[] {
  const dash = JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] };
  const out: string[] = [];
  const walk = (ps: Panel[]): void => {
    for (const p of ps) {
      for (const t of p.targets ?? []) if (t.expr) out.push(t.expr);
      walk(p.panels ?? []);
    }
  };
  walk(dash.panels);
  return out;
}

/** The metric names the dashboard queries (identifiers of the gate's and the SDK's metrics). */
export function dashboardMetricNames(): string[] {
  const names = new Set<string>();
  for (const expr of dashboardExpressions())
    for (const m of expr.matchAll(/\b((?:gate|temporal)_[a-zA-Z0-9_]+)\b/g)) names.add(m[1]!);
  return [...names].sort();
}
