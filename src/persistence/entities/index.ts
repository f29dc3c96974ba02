import { ApiKeySchema } from './api-key.ts';
import { AuditEventSchema } from './audit-event.ts';
import { ConfigSchema } from './config.ts';
import { ConfigVersionSchema } from './config-version.ts';
import { GuardrailSchema } from './guardrail.ts';
import { GuardrailVersionSchema } from './guardrail-version.ts';
import { GuardrailWorkspaceExclusionSchema, OrganisationGuardrailDefaultsSchema } from './guardrail-settings.ts';
import { FeedbackSchema } from './feedback.ts';
import { LogExportSchema } from './log-export.ts';
import { OrganisationSchema } from './organisation.ts';
import { RequestLogSchema } from './request-log.ts';
import { UserSchema } from './user.ts';
import { InviteSchema } from './invite.ts';
import { WorkspaceMemberSchema } from './workspace-member.ts';
import { WorkspaceSchema } from './workspace.ts';
import { IntegrationSchema } from './integration.ts';
import { IntegrationModelSchema } from './integration-model.ts';
import { IntegrationWorkspaceSchema } from './integration-workspace.ts';
import { ProviderSchema } from './provider.ts';
import { RateLimitPolicySchema } from './rate-limit-policy.ts';
import { UsageLimitPolicyEntitySchema, UsageLimitPolicySchema } from './usage-limit-policy.ts';
import { SecretReferenceSchema } from './secret-reference.ts';
import { DeploymentSchema } from './deployment.ts';
import { McpCapabilitySchema, McpIntegrationSchema, McpIntegrationWorkspaceSchema } from './mcp-integration.ts';
import { McpServerCapabilitySchema, McpServerConnectionSchema, McpServerSchema, McpServerUserAccessSchema } from './mcp-server.ts';

// One entity per line, so resources added in parallel merge cleanly.
export const ENTITIES = [
  ApiKeySchema,
  AuditEventSchema,
  ConfigSchema,
  ConfigVersionSchema,
  GuardrailSchema,
  GuardrailVersionSchema,
  GuardrailWorkspaceExclusionSchema,
  OrganisationGuardrailDefaultsSchema,
  FeedbackSchema,
  LogExportSchema,
  OrganisationSchema,
  RequestLogSchema,
  UserSchema,
  InviteSchema,
  WorkspaceMemberSchema,
  WorkspaceSchema,
  IntegrationSchema,
  IntegrationModelSchema,
  IntegrationWorkspaceSchema,
  ProviderSchema,
  RateLimitPolicySchema,
  UsageLimitPolicyEntitySchema,
  UsageLimitPolicySchema,
  SecretReferenceSchema,
  DeploymentSchema,
  McpCapabilitySchema,
  McpIntegrationSchema,
  McpIntegrationWorkspaceSchema,
  McpServerCapabilitySchema,
  McpServerConnectionSchema,
  McpServerSchema,
  McpServerUserAccessSchema,
];
export {
  ApiKeySchema,
  AuditEventSchema,
  ConfigSchema,
  ConfigVersionSchema,
  GuardrailSchema,
  GuardrailVersionSchema,
  GuardrailWorkspaceExclusionSchema,
  OrganisationGuardrailDefaultsSchema,
  FeedbackSchema,
  LogExportSchema,
  OrganisationSchema,
  RequestLogSchema,
  UserSchema,
  InviteSchema,
  WorkspaceMemberSchema,
  WorkspaceSchema,
  IntegrationSchema,
  IntegrationModelSchema,
  IntegrationWorkspaceSchema,
  ProviderSchema,
  RateLimitPolicySchema,
  UsageLimitPolicyEntitySchema,
  UsageLimitPolicySchema,
  SecretReferenceSchema,
  DeploymentSchema,
  McpCapabilitySchema,
  McpIntegrationSchema,
  McpIntegrationWorkspaceSchema,
  McpServerCapabilitySchema,
  McpServerConnectionSchema,
  McpServerSchema,
  McpServerUserAccessSchema,
};
