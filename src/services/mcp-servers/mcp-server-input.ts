import { z } from 'zod';

// Request bodies of /mcp-servers (control-plane-schemas 2.18).

export const createMcpServerSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  mcp_integration_id: z.string().min(1).max(255),
  workspace_id: z.string().min(1).optional(),
  description: z.string().max(500).nullable().optional(),
  slug: z.string().min(3).max(50).regex(/^[a-zA-Z0-9_-]+$/, 'must match ^[a-zA-Z0-9_-]+$').optional(),
});

export const updateMcpServerSchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  description: z.string().max(500).nullable().optional(),
});

export const updateUserAccessSchema = z.strictObject({
  user_access: z.array(z.strictObject({ user_id: z.string().uuid(), enabled: z.boolean() })).optional(),
  default_user_access: z.enum(['allow', 'deny']).optional(),
});
