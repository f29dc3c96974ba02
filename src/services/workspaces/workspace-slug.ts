/** `ws-<slugified name>-<6 random hex>`, e.g. `ws-test-a-174eb1` (control-plane-schemas 2.7). */
export function generateWorkspaceSlug(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `ws-${base || 'workspace'}-${hex}`;
}
