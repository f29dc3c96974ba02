import { invalidParameter } from '../../domain/errors.ts';
import type { McpCapability } from '../../persistence/entities/mcp-integration.ts';

/** A capability item (control-plane-schemas 2.18); server lists add `integration_enabled`. */
export interface McpCapabilityView {
  name: string;
  type: string;
  title: string | null;
  description: string | null;
  icons: unknown;
  enabled: boolean;
  created_at: string;
  last_updated_at: string;
  input_schema: unknown;
  output_schema: unknown;
  execution: unknown;
  annotations: unknown;
  arguments: unknown;
  uri: string | null;
  uri_template: string | null;
  mime_type: string | null;
  size: number | null;
  integration_enabled?: boolean | null;
}

export interface CapabilityCount {
  total: number;
  enabled: number;
}

export interface CapabilityCounts {
  tools: CapabilityCount;
  prompts: CapabilityCount;
  resources: CapabilityCount;
  resource_templates: CapabilityCount;
}

/** `{data, counts, total, has_more}` of the capability lists. */
export interface CapabilityPage {
  data: McpCapabilityView[];
  counts: CapabilityCounts;
  total: number;
  has_more: boolean;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function toCapabilityView(c: McpCapability, enabled = c.enabled): McpCapabilityView {
  const d = c.details;
  return {
    name: c.name,
    type: c.type,
    title: c.title ?? null,
    description: c.description ?? null,
    icons: d.icons ?? null,
    enabled,
    created_at: c.createdAt.toISOString(),
    last_updated_at: c.updatedAt.toISOString(),
    input_schema: d.input_schema ?? d.inputSchema ?? null,
    output_schema: d.output_schema ?? d.outputSchema ?? null,
    execution: d.execution ?? null,
    annotations: d.annotations ?? null,
    arguments: d.arguments ?? null,
    uri: str(d.uri),
    uri_template: str(d.uri_template ?? d.uriTemplate),
    mime_type: str(d.mime_type ?? d.mimeType),
    size: typeof d.size === 'number' ? d.size : null,
  };
}

const PLURAL: Record<string, keyof CapabilityCounts> = { tool: 'tools', prompt: 'prompts', resource: 'resources', resource_template: 'resource_templates' };

export function countCapabilities(items: { type: string; enabled: boolean }[]): CapabilityCounts {
  const counts: CapabilityCounts = { tools: { total: 0, enabled: 0 }, prompts: { total: 0, enabled: 0 }, resources: { total: 0, enabled: 0 }, resource_templates: { total: 0, enabled: 0 } };
  for (const i of items) {
    const c = counts[PLURAL[i.type]!];
    c.total++;
    if (i.enabled) c.enabled++;
  }
  return counts;
}

/** The 1-based `page` + `page_size` dialect of the MCP sub-lists (control-plane-schemas 1.1: min 1, max 500, default 100). */
export function onePageWindow(args: { page?: number | null; pageSize?: number | null }, max = 500): { limit: number; offset: number } {
  const page = args.page ?? 1;
  const size = args.pageSize ?? 100;
  if (!Number.isInteger(page) || page < 1) throw invalidParameter('page', 'page must be an integer ≥ 1');
  if (!Number.isInteger(size) || size < 1 || size > max) throw invalidParameter('page_size', `page_size must be an integer from 1 to ${max}`);
  return { limit: size, offset: (page - 1) * size };
}

export const CAPABILITY_ORDER = { type: 'asc', name: 'asc' } as const;
