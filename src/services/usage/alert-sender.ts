// Usage-limit alerts (issue 8 item 3; gateway-spec Limits: alert_threshold, alert_emails). Workers
// flag the one request per period that crosses a threshold; the control plane notifies when it
// stores that request's usage record. The sender is pluggable (e-mail, webhook); the default logs.
import { createLogger, type Logger } from '../../domain/logger.ts';
import type { UsageAlert } from '../../domain/usage-record.ts';

export interface AlertNotice {
  /** The key's alert_emails (empty for policy alerts: the policy has no recipients of its own). */
  to: string[];
  organisation_id: string;
  workspace_id: string | null;
  api_key_id: string | null;
  /** The request that crossed the threshold. */
  request_id: string;
  alert: UsageAlert;
}

export interface AlertSender {
  send(notice: AlertNotice): Promise<void>;
}

export function loggingAlertSender(logger: Logger = createLogger('usage-alerts')): AlertSender {
  return {
    async send(n) {
      logger.warn('usage limit alert threshold crossed', {
        to: n.to,
        organisation_id: n.organisation_id,
        workspace_id: n.workspace_id,
        api_key_id: n.api_key_id,
        request_id: n.request_id,
        scope: n.alert.scope,
        id: n.alert.id,
        type: n.alert.type,
        alert_threshold: n.alert.alert_threshold,
        credit_limit: n.alert.credit_limit,
        period_end: new Date(n.alert.period_end_ms).toISOString(),
      });
    },
  };
}

let defaultSender: AlertSender | null = null;
export const defaultAlertSender = (): AlertSender => (defaultSender ??= loggingAlertSender());
