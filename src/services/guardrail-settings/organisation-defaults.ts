import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, invalidParameter } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { GuardrailSchema, OrganisationGuardrailDefaultsSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { UUID } from '../guardrails/find-guardrail.ts';
import { organisationDefaultsSchema } from './guardrail-settings-input.ts';

// Organisation default guardrails (GET/PUT /v1/admin/organisation/defaults): organisation
// guardrails applied to every workspace's requests, except the workspaces excluded from them.
// Organisation settings, so `organisation_settings.read` / `.update` and organisation keys only.

export interface GuardrailRef {
  id: string;
  slug: string;
}

export interface OrganisationDefaultsView {
  input_guardrails: GuardrailRef[];
  output_guardrails: GuardrailRef[];
  object: 'organisation-defaults';
}

const DIRECTIONS = ['input_guardrails', 'output_guardrails'] as const;

function requireOrganisationKey(actor: Actor): void {
  if (!isOrganisationKey(actor)) throw forbidden('Organisation defaults need an organisation API key.', 'organisation_key_required');
}

async function view(em: EntityManager, organisationId: string): Promise<OrganisationDefaultsView> {
  const row = await em.findOne(OrganisationGuardrailDefaultsSchema, { organisationId });
  const ids = [...(row?.inputGuardrails ?? []), ...(row?.outputGuardrails ?? [])];
  const rows = ids.length ? await em.find(GuardrailSchema, { id: { $in: ids }, organisationId, deletedAt: null }) : [];
  const byId = new Map(rows.map((g) => [g.id, { id: g.id, slug: g.slug }]));
  const refs = (list: string[] | undefined) => (list ?? []).flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  return { input_guardrails: refs(row?.inputGuardrails), output_guardrails: refs(row?.outputGuardrails), object: 'organisation-defaults' };
}

/** GET: each default guardrail's id and slug, in order. */
export async function getOrganisationDefaults(em: EntityManager, actor: Actor): Promise<OrganisationDefaultsView> {
  authorize(actor, 'organisation_settings.read');
  requireOrganisationKey(actor);
  return view(em, actor.organisationId);
}

/** PUT: a given list replaces its direction; each entry a live organisation guardrail (id or slug), once. */
export async function updateOrganisationDefaults(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<OrganisationDefaultsView> {
  authorize(actor, 'organisation_settings.update');
  requireOrganisationKey(actor);
  const body = parseWith(organisationDefaultsSchema, input);
  return em.transactional(async (tx) => {
    const resolved: Partial<Record<(typeof DIRECTIONS)[number], string[]>> = {};
    for (const dir of DIRECTIONS) {
      const list = body[dir];
      if (list === undefined) continue;
      const ids: string[] = [];
      for (const [i, ref] of list.entries()) {
        const param = `${dir}[${i}]`;
        const g = await tx.findOne(GuardrailSchema, { ...(UUID.test(ref) ? { id: ref } : { slug: ref }), organisationId: actor.organisationId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_READ });
        if (!g) throw invalidParameter(param, `${param}: unknown guardrail ${ref}`);
        if (g.workspaceId) throw invalidParameter(param, `${param}: ${ref} is a workspace guardrail; organisation defaults take organisation guardrails`);
        if (ids.includes(g.id)) throw invalidParameter(param, `${param}: ${ref} is listed twice`);
        ids.push(g.id);
      }
      resolved[dir] = ids;
    }
    const row = await tx.findOne(OrganisationGuardrailDefaultsSchema, { organisationId: actor.organisationId });
    if (row) {
      if (resolved.input_guardrails) row.inputGuardrails = resolved.input_guardrails;
      if (resolved.output_guardrails) row.outputGuardrails = resolved.output_guardrails;
      row.updatedBy = actor.userId ?? actor.keyId;
      row.updatedAt = new Date();
    } else {
      tx.create(OrganisationGuardrailDefaultsSchema, {
        organisationId: actor.organisationId,
        inputGuardrails: resolved.input_guardrails ?? [],
        outputGuardrails: resolved.output_guardrails ?? [],
        updatedBy: actor.userId ?? actor.keyId,
      });
    }
    recordAudit(tx, actor, meta, {
      action: 'organisation_defaults.update',
      targetType: 'organisation',
      targetId: actor.organisationId,
      details: resolved,
    });
    await tx.flush();
    return view(tx, actor.organisationId);
  });
}
