import { generateSlug } from '../../domain/slug.ts';

/** `pc-<slugified name>-<6 random hex>` (control-plane-schemas 2.2). */
export const generateConfigSlug = (name: string): string => generateSlug('pc', name, 'config');
