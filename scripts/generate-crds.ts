/** `npm run crds:generate`: writes crds/<plural>.<group>.yaml from operator/resources.ts. */
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { customResourceDefinition } from '../operator/crd.js';
import { GROUP, RESOURCES } from '../operator/resources.js';

export const HEADER = '# Generated from operator/resources.ts by `npm run crds:generate`; do not edit.\n';

for (const resource of RESOURCES) {
  const file = new URL(`../crds/${resource.plural}.${GROUP}.yaml`, import.meta.url);
  await writeFile(file, HEADER + stringify(customResourceDefinition(resource), { lineWidth: 0 }));
  console.log(`wrote crds/${resource.plural}.${GROUP}.yaml`);
}
