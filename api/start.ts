import { fileURLToPath } from 'node:url';
import { supervise } from './supervisor.js';

/** `npm start`: the API server (api/main.ts) under a supervisor that restarts it after a crash. */
const server = fileURLToPath(new URL('./main.ts', import.meta.url));
const code = await supervise({ command: process.execPath, args: [...process.execArgv, server] });
process.exit(code);
