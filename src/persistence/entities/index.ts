import { ApiKeySchema } from './api-key.ts';
import { AuditEventSchema } from './audit-event.ts';
import { ConfigSchema } from './config.ts';
import { ConfigVersionSchema } from './config-version.ts';
import { FeedbackSchema } from './feedback.ts';
import { LogExportSchema } from './log-export.ts';
import { OrganisationSchema } from './organisation.ts';
import { RequestLogSchema } from './request-log.ts';
import { UserSchema } from './user.ts';
import { InviteSchema } from './invite.ts';
import { WorkspaceMemberSchema } from './workspace-member.ts';
import { WorkspaceSchema } from './workspace.ts';

export const ENTITIES = [OrganisationSchema, WorkspaceSchema, UserSchema, ApiKeySchema, AuditEventSchema, RequestLogSchema, WorkspaceMemberSchema, InviteSchema, ConfigSchema, ConfigVersionSchema, FeedbackSchema, LogExportSchema];
export { ApiKeySchema, AuditEventSchema, ConfigSchema, ConfigVersionSchema, FeedbackSchema, LogExportSchema, InviteSchema, OrganisationSchema, RequestLogSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema };
