import { ApiKeySchema } from './api-key.ts';
import { AuditEventSchema } from './audit-event.ts';
import { ConfigSchema } from './config.ts';
import { ConfigVersionSchema } from './config-version.ts';
import { OrganisationSchema } from './organisation.ts';
import { RequestLogSchema } from './request-log.ts';
import { UserSchema } from './user.ts';
import { InviteSchema } from './invite.ts';
import { WorkspaceMemberSchema } from './workspace-member.ts';
import { WorkspaceSchema } from './workspace.ts';
import { RateLimitPolicySchema } from './rate-limit-policy.ts';
import { UsageLimitPolicyEntitySchema, UsageLimitPolicySchema } from './usage-limit-policy.ts';
import { SecretReferenceSchema } from './secret-reference.ts';

export const ENTITIES = [OrganisationSchema, WorkspaceSchema, UserSchema, ApiKeySchema, AuditEventSchema, RequestLogSchema, WorkspaceMemberSchema, InviteSchema, ConfigSchema, ConfigVersionSchema, RateLimitPolicySchema, UsageLimitPolicySchema, UsageLimitPolicyEntitySchema, SecretReferenceSchema];
export { ApiKeySchema, AuditEventSchema, ConfigSchema, ConfigVersionSchema, InviteSchema, OrganisationSchema, RequestLogSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema };
export { RateLimitPolicySchema, UsageLimitPolicySchema, UsageLimitPolicyEntitySchema, SecretReferenceSchema };
