import assert from 'node:assert/strict';
import { ROOT, run } from '../support/process.js';

describe("the project's npm configuration", () => {
  it('makes npm warn about nothing on an ordinary command', async () => {
    const { stderr } = await run('npm', ['pkg', 'get', 'name'], { cwd: ROOT });
    assert.equal(stderr, '');
  });
});
