// Exact money arithmetic for prices: a per-token USD price is a decimal with up to ~12 significant
// fractional digits (e.g. $0.075 per million tokens = 0.000000075 per token); binary floats cannot
// hold these, and multiplying by millions of tokens magnifies the error. Prices are converted to
// integers of 1e-18 USD ("atto-dollars") with BigInt, multiplied exactly, and turned back into
// decimal strings only at the edge.

export const SCALE_DIGITS = 18;
const SCALE = 10n ** BigInt(SCALE_DIGITS);

/** `"2.5"`, `2.5`, `"1.25e-6"`, `0.000000075` → atto-dollars; throws on negatives, NaN and non-numbers. */
export function toAtto(value: string | number): bigint {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  const m = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text) ?? /^()\.(\d+)(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) throw new RangeError(`Not a non-negative decimal: ${String(value)}`);
  const intPart = m[1] ?? '';
  const frac = m[2] ?? '';
  const exp = Number(m[3] ?? 0);
  // digits × 10^(exp − frac.length) × 10^18
  const digits = BigInt((intPart + frac).replace(/^0+(?=\d)/, '') || '0');
  const shift = SCALE_DIGITS + exp - frac.length;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  if (digits % div !== 0n) throw new RangeError(`More precision than 1e-${SCALE_DIGITS}: ${String(value)}`);
  return digits / div;
}

function numberText(n: number): string {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`Not a non-negative finite number: ${n}`);
  // Shortest round-trip representation: what the author wrote for literals like 0.000000075.
  return String(n);
}

/** Atto-dollars → a plain decimal string (no exponent, no trailing zeros): 2500000000000n → "0.0000025". */
export function attoToDecimal(atto: bigint, shiftDigits = 0): string {
  const negative = atto < 0n;
  const abs = negative ? -atto : atto;
  const digits = SCALE_DIGITS - shiftDigits;
  const s = abs.toString().padStart(digits + 1, '0');
  const intPart = digits > 0 ? s.slice(0, s.length - digits) : s + '0'.repeat(-digits);
  const frac = digits > 0 ? s.slice(s.length - digits).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${intPart}${frac ? `.${frac}` : ''}`;
}

/** Per-million price → per-token atto-dollars (exact: a decimal shift). */
export const perMillionToAtto = (perMillion: string | number): bigint => {
  const atto = toAtto(perMillion);
  if (atto % 1_000_000n !== 0n) throw new RangeError(`Per-million price too precise: ${String(perMillion)}`);
  return atto / 1_000_000n;
};

export { SCALE };
