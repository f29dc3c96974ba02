import { generateSlug } from '../../domain/slug.ts';

/** `ws-<slugified name>-<6 random hex>`, e.g. `ws-test-a-174eb1` (control-plane-schemas 2.7). */
export const generateWorkspaceSlug = (name: string): string => generateSlug('ws', name, 'workspace');
