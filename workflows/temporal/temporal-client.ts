import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import { PERIOD_SCHEDULED_SIGNAL } from './job-input.js';
import type { WorkflowStarter } from './temporal.engine.js';

type TemporalConfig = Extract<Config['workflowEngine'], { kind: 'temporal' }>;

/** Connection options from the configuration (TLS and an API key for Temporal Cloud). */
export function connectionOptions(config: TemporalConfig): { address: string; tls: boolean; apiKey?: string } {
  return { address: config.address, tls: config.tls, ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
}

/** Starts job workflows through Temporal's client; connects on first use, so API pods start without Temporal. */
export function temporalStarter(config: TemporalConfig): WorkflowStarter & { close(): Promise<void> } {
  const connection = Connection.lazy(connectionOptions(config));
  const client = new Client({ connection, namespace: config.namespace });
  return {
    async startJob({ workflowId, taskQueue, input }) {
      try {
        await client.workflow.start('runJob', { workflowId, taskQueue, args: [input] });
      } catch (err) {
        // Started before (a crash between starting and marking the outbox): it is Temporal's already.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
    async scheduleBillingPeriod({ workflowId, taskQueue, tenantId, job }) {
      // Signals the running workflow, or starts it with the signal: one billing workflow per tenant.
      await client.workflow.signalWithStart('billingPeriods', {
        workflowId,
        taskQueue,
        args: [{ tenantId, scheduled: [] }],
        signal: PERIOD_SCHEDULED_SIGNAL,
        signalArgs: [job],
      });
    },
    close: () => connection.close(),
  };
}
