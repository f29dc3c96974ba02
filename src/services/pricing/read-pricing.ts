import { AppError } from '../../domain/errors.ts';
import { findPrice } from '../../domain/pricing/find-price.ts';
import { priceSheet, type PriceSheet } from '../../domain/pricing/price-sheet.ts';

/**
 * `GET /model-configs/pricing/{provider}/{model}` (control-plane-schemas 2.21): public, no
 * credentials, the shipped catalogue only (operators' custom prices are private to their
 * organisation). Unknown provider or model → 404.
 */
export function getModelPricing(provider: string, model: string): PriceSheet {
  const match = findPrice(provider, model);
  if (!match) throw new AppError(404, 'not_found_error', 'model_pricing_not_found', `No pricing for model ${model} of provider ${provider}`, 'model');
  return priceSheet(match);
}
