// Where the gateway workers are reached from outside (GATEWAY_PUBLIC_URLS, src/platform/env.ts):
// deployment lists show them (gateway-spec: "gateway base URLs in list responses") and MCP server
// lists build each server's URL from the MCP gateway base (control-plane-schemas 2.18).

/** The MCP gateway is served by the workers under `/mcp` of the first gateway URL. */
export const mcpGatewayBase = (gatewayUrls: readonly string[]): string | null => (gatewayUrls[0] ? `${gatewayUrls[0]}/mcp` : null);

/** `{gateway_base}/{slug}/mcp`, the URL clients connect an MCP server at; null when no gateway URL is configured. */
export function mcpServerUrl(gatewayUrls: readonly string[], slug: string): string | null {
  const base = mcpGatewayBase(gatewayUrls);
  return base ? `${base}/${encodeURIComponent(slug)}/mcp` : null;
}
