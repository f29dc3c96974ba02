import { configFromHeader, looksLikeInlineConfig } from '../../src/domain/config/config-schema.ts';
import { AppError } from '../../src/domain/errors.ts';
import { bufferedResponse } from '../../src/domain/http/buffered-response.ts';
import { ControlPlaneUnavailable, type ModelCatalogue } from '../contracts.ts';
import type { GatewayHeaders } from '../pipeline/gateway-headers.ts';

/**
 * GET /v1/models (spec: Request headers): with the fetch-integrated-models flag (header, or
 * `fetch_integrated_models` in an inline config) the integrated catalogue answers even when a
 * provider or config is passed; otherwise any provider signal proxies to the provider, and
 * without one the catalogue answers.
 */
export function wantsCatalogue(h: GatewayHeaders): boolean {
  if (h.fetchIntegratedModels) return true;
  if (h.config && looksLikeInlineConfig(h.config) && configFromHeader(h.config).fetch_integrated_models === true) return true;
  return !(h.provider || h.virtualKey || h.config || h.customHost);
}

export async function catalogueResponse(catalogue: ModelCatalogue | undefined, workspaceId: string | null, traceId: string): Promise<Response> {
  if (!catalogue) throw new AppError(503, 'service_unavailable_error', 'model_catalogue_unavailable', 'The integrated model catalogue is not available on this worker; name a provider to list its models.');
  let data;
  try {
    data = await catalogue.listModels(workspaceId ?? '');
  } catch (err) {
    if (err instanceof ControlPlaneUnavailable) {
      throw new AppError(503, 'service_unavailable_error', 'control_plane_unavailable', 'The model catalogue cannot be read right now: the control plane is unreachable. Retry shortly.');
    }
    throw err;
  }
  return bufferedResponse(JSON.stringify({ object: 'list', data }), 200, { 'content-type': 'application/json', 'x-gateway-trace-id': traceId });
}
