import { fileURLToPath } from 'node:url';
import { siblingModule } from '../../core/shared/typescript-worker.js';

/** The workflow module a worker bundles (TypeScript: the SDK's bundler compiles it). */
export const WORKFLOWS_PATH = fileURLToPath(siblingModule(import.meta.url, 'job.workflow'));
