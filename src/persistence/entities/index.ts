import { ApiKeySchema } from './api-key.ts';
import { AuditEventSchema } from './audit-event.ts';
import { ConfigSchema } from './config.ts';
import { ConfigVersionSchema } from './config-version.ts';
import { GuardrailSchema } from './guardrail.ts';
import { GuardrailVersionSchema } from './guardrail-version.ts';
import { GuardrailWorkspaceExclusionSchema, OrganisationGuardrailDefaultsSchema } from './guardrail-settings.ts';
import { OrganisationSchema } from './organisation.ts';
import { RequestLogSchema } from './request-log.ts';
import { UserSchema } from './user.ts';
import { InviteSchema } from './invite.ts';
import { WorkspaceMemberSchema } from './workspace-member.ts';
import { WorkspaceSchema } from './workspace.ts';

export const ENTITIES = [OrganisationSchema, WorkspaceSchema, UserSchema, ApiKeySchema, AuditEventSchema, RequestLogSchema, WorkspaceMemberSchema, InviteSchema, ConfigSchema, ConfigVersionSchema, GuardrailSchema, GuardrailVersionSchema, OrganisationGuardrailDefaultsSchema, GuardrailWorkspaceExclusionSchema];
export { ApiKeySchema, AuditEventSchema, ConfigSchema, ConfigVersionSchema, GuardrailSchema, GuardrailVersionSchema, GuardrailWorkspaceExclusionSchema, OrganisationGuardrailDefaultsSchema, InviteSchema, OrganisationSchema, RequestLogSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema };
