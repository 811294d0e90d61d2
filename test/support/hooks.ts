import { closeTestDatabases } from './databases.js';

/** Mocha root hooks: shared databases are closed once, after every suite has run. */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeTestDatabases();
  },
};
