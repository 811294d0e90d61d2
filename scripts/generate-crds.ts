/** `npm run crds:generate`: writes crds/<plural>.<group>.yaml from operator/resources.ts, and the Helm chart's copy. */
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { customResourceDefinition } from '../operator/crd.js';
import { GROUP, RESOURCES } from '../operator/resources.js';

export const HEADER = '# Generated from operator/resources.ts by `npm run crds:generate`; do not edit.\n';

// Helm installs a chart's crds/ before its templates; the chart test checks the copy is identical.
for (const dir of ['crds', 'charts/lore/crds']) {
  for (const resource of RESOURCES) {
    const file = `${dir}/${resource.plural}.${GROUP}.yaml`;
    await writeFile(new URL(`../${file}`, import.meta.url), HEADER + stringify(customResourceDefinition(resource), { lineWidth: 0 }));
    console.log(`wrote ${file}`);
  }
}
