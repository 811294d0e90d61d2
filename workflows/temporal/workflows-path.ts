import { fileURLToPath } from 'node:url';

/** The workflow module a worker bundles (TypeScript: the SDK's bundler compiles it). */
export const WORKFLOWS_PATH = fileURLToPath(new URL('./job.workflow.ts', import.meta.url));
