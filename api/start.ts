import { fileURLToPath } from 'node:url';
import { siblingModule } from '../core/shared/typescript-worker.js';
import { supervise } from './supervisor.js';

/** `npm start`: the API server (api/main.ts) under a supervisor that restarts it after a crash. */
const server = fileURLToPath(siblingModule(import.meta.url, 'main'));
const code = await supervise({ command: process.execPath, args: [...process.execArgv, server] });
process.exit(code);
