import type { GuardrailActions, GuardrailCheck } from '../../domain/guardrails/guardrail-schema.ts';
import type { Guardrail } from '../../persistence/entities/guardrail.ts';

/** A guardrail list item (control-plane-schemas 2.3 "Guardrail summary"). */
export interface GuardrailView {
  id: string;
  name: string;
  slug: string;
  organisation_id: string;
  /** null for an organisation guardrail. */
  workspace_id: string | null;
  status: string;
  created_at: string;
  last_updated_at: string;
  owner_id: string;
  updated_by: string | null;
  version_id: string | null;
  object: 'guardrail';
}

/** `GET /guardrails/{id}`: the item plus checks and actions (static header values masked). */
export interface GuardrailDetailView extends GuardrailView {
  checks: GuardrailCheck[];
  actions: GuardrailActions;
}

export function toGuardrailView(g: Guardrail): GuardrailView {
  return {
    id: g.id,
    name: g.name,
    slug: g.slug,
    organisation_id: g.organisationId,
    workspace_id: g.workspaceId ?? null,
    status: g.status,
    created_at: g.createdAt.toISOString(),
    last_updated_at: g.updatedAt.toISOString(),
    owner_id: g.ownerId,
    updated_by: g.updatedBy ?? null,
    version_id: g.currentVersionId ?? null,
    object: 'guardrail',
  };
}

/**
 * Static `headers` of webhook/log checks often carry the endpoint's credentials: answers show
 * them masked (first and last two characters of long values). A masked value sent back on update
 * keeps the stored one (see keepMaskedHeaders).
 */
export function maskHeaderValue(value: string): string {
  return value.length >= 12 ? `${value.slice(0, 2)}********${value.slice(-2)}` : '********';
}

function mapHeaders(checks: GuardrailCheck[], f: (name: string, value: string, i: number) => string): GuardrailCheck[] {
  return checks.map((c, i) => {
    const headers = c.parameters.headers as Record<string, string> | undefined;
    if (!headers || typeof headers !== 'object') return c;
    return { ...c, parameters: { ...c.parameters, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, f(k, v, i)])) } };
  });
}

export const maskChecks = (checks: GuardrailCheck[]): GuardrailCheck[] => mapHeaders(checks, (_k, v) => maskHeaderValue(v));

/**
 * On update: a header value equal to the mask of a stored value (same header of a stored check with
 * the same id, at the same position first) keeps the stored value, so a GET → edit → PUT round trip
 * does not overwrite secrets with their masks.
 */
export function keepMaskedHeaders(next: GuardrailCheck[], stored: GuardrailCheck[]): GuardrailCheck[] {
  return mapHeaders(next, (name, value, i) => {
    const candidates = [stored[i], ...stored].filter((c): c is GuardrailCheck => c !== undefined && c.id === next[i]!.id);
    for (const c of candidates) {
      const old = (c.parameters.headers as Record<string, string> | undefined)?.[name];
      if (old !== undefined && value === maskHeaderValue(old)) return old;
    }
    return value;
  });
}

export function toGuardrailDetailView(g: Guardrail): GuardrailDetailView {
  return { ...toGuardrailView(g), checks: maskChecks(g.checks as unknown as GuardrailCheck[]), actions: g.actions as unknown as GuardrailActions };
}
