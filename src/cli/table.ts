/** Shortens `s` to `max` characters, marking the cut with an ellipsis. */
export function truncate(s: string, max: number): string {
  if (max <= 0) return '';
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** Replaces line breaks and tabs so one value stays on one table row. */
export function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ');
}

/**
 * Renders rows under headers as left-aligned columns separated by two spaces.
 * Cells are flattened to one line; `maxWidths` (by column index) truncates wide ones.
 * Trailing spaces are trimmed, so the last column never pads.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  maxWidths: Readonly<Record<number, number>> = {},
): string {
  const cells = [headers, ...rows].map((r) =>
    headers.map((_, i) => truncate(oneLine(r[i] ?? ''), maxWidths[i] ?? Infinity)),
  );
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `key: value` lines with the keys padded to one width; undefined values are left out. */
export function renderFields(fields: readonly (readonly [string, string | undefined])[]): string {
  const shown = fields.filter((f): f is readonly [string, string] => f[1] !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length + 1));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width)} ${v}`).join('\n');
}

/** "in 59m", "3h ago": how far `iso` is from `now`, for deadlines. Empty for unparsable input. */
export function relativeTime(iso: string, now: Date): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const diff = t - now.getTime();
  const abs = Math.abs(diff) / 1000;
  const span =
    abs < 60
      ? `${Math.round(abs)}s`
      : abs < 3600
        ? `${Math.round(abs / 60)}m`
        : abs < 172800
          ? `${Math.round(abs / 3600)}h`
          : `${Math.round(abs / 86400)}d`;
  return diff >= 0 ? `in ${span}` : `${span} ago`;
}
