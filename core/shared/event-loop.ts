/**
 * Waits for one turn of the event loop. PGlite answers through promise callbacks alone, so a loop
 * of database calls never lets timers, file reads or HTTP requests run until it ends: long loops
 * (a backlog of jobs, a long job, loading the vector index) call this between steps.
 */
export function turnEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
