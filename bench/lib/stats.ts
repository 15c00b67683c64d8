/** Small statistics helpers shared by the load and micro-benchmark helpers. */

/** The q-quantile (0..1) of `values` by the nearest-rank method; NaN for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Round to `digits` significant decimals for reports (keeps JSON readable). */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
