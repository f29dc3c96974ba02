import { checkCustomHost, trustedHostSet } from '../../domain/net/custom-host.ts';

// The control plane calls operator-given URLs only to test them (MCP upstream test, deployment
// ping). Like the workers' custom hosts (gateway-spec: private and reserved ranges blocked by
// default), private, loopback and metadata addresses are refused unless TRUSTED_CUSTOM_HOSTS
// names them, so these checks cannot probe the control plane's own network.

/** null when `url` may be called, else why not. */
export function outboundRefusal(url: string, trustedHosts: readonly string[]): string | null {
  const checked = checkCustomHost(url, trustedHostSet([...trustedHosts]), 'url');
  return checked instanceof URL ? null : `${checked.message.replace(/^url /, 'The URL ')} (allow it with TRUSTED_CUSTOM_HOSTS)`;
}
