/**
 * `<prefix>-<slugified name>-<6 random hex>`, the generated slug form of the control plane
 * (`ws-test-a-174eb1`, `pc-…`: control-plane-schemas 1.4).
 */
export function generateSlug(prefix: string, name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${prefix}-${base || fallback}-${hex}`;
}
