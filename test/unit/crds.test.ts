import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { evaluate } from '@marcbachmann/cel-js';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse, stringify } from 'yaml';
import { customResourceDefinition } from '../../operator/crd.js';
import { GROUP, RESOURCES, subTenantSpecSchema, tenantSpecSchema } from '../../operator/resources.js';

type Schema = Record<string, unknown>;

// CommonJS with a default export.
const addFormats = addFormatsModule.default;

const crdFile = (plural: string) => new URL(`../../crds/${plural}.${GROUP}.yaml`, import.meta.url);

async function committed(plural: string): Promise<Schema> {
  return parse(await readFile(crdFile(plural), 'utf8')) as Schema;
}

function openApiSchema(crd: Schema): Schema {
  const versions = (crd.spec as { versions: Array<{ schema: { openAPIV3Schema: Schema } }> }).versions;
  return versions[0]!.schema.openAPIV3Schema;
}

/** Every node of a structural schema has a type and none of the constructs the API server refuses. */
function structuralProblems(node: Schema, path = ''): string[] {
  const problems: string[] = [];
  if (typeof node.type !== 'string' && node['x-kubernetes-int-or-string'] !== true) problems.push(`${path || '/'}: no type`);
  for (const banned of ['$ref', 'anyOf', 'oneOf', 'allOf', 'definitions', '$defs']) if (banned in node) problems.push(`${path}: ${banned}`);
  if (node.additionalProperties === false) problems.push(`${path}: additionalProperties false`);
  for (const [key, child] of Object.entries((node.properties as Record<string, Schema> | undefined) ?? {})) problems.push(...structuralProblems(child, `${path}/${key}`));
  if (node.items) problems.push(...structuralProblems(node.items as Schema, `${path}[]`));
  if (typeof node.additionalProperties === 'object') problems.push(...structuralProblems(node.additionalProperties as Schema, `${path}{}`));
  return problems;
}

const validTenant = {
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'Tenant',
  metadata: { name: 'acme' },
  spec: {
    displayName: 'Acme',
    plan: 'enterprise',
    email: 'ops@acme.example',
    addons: ['transcription'],
    limitOverrides: { maxKnowledgeBases: null, maxChunks: 2000000, queryRateLimitPerMin: 1000 },
    translation: { query_translation: 'auto', preferred_language: 'nl' },
    anonymizeByDefault: true,
    suspended: false,
  },
  status: {
    phase: 'Ready',
    tenantId: '3f0c7b1e-8a53-4a52-9d1e-2f4b8c6d7e90',
    observedGeneration: 2,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', lastTransitionTime: '2026-11-25T10:00:00Z', observedGeneration: 2 }],
    apiKeySecretRef: { name: 'acme-lore-api-key', key: 'apiKey' },
  },
};

const validSubTenant = {
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'SubTenant',
  metadata: { name: 'acme-rotterdam' },
  spec: { tenantRef: { name: 'acme' }, name: 'Rotterdam', externalId: 'crm-42', limits: { maxDocuments: 500, includedQueriesPerPeriod: 10000 } },
};

describe('the Tenant and SubTenant CRDs (crds/), generated from operator/resources.ts', () => {
  it('are committed exactly as `npm run crds:generate` writes them', async () => {
    for (const resource of RESOURCES) {
      const text = await readFile(crdFile(resource.plural), 'utf8');
      assert.equal(text.replace(/^#.*\n/, ''), stringify(customResourceDefinition(resource), { lineWidth: 0 }), `crds/${resource.plural}.${GROUP}.yaml is stale: npm run crds:generate`);
    }
  });

  it('have structural schemas, a status subresource and printer columns', async () => {
    for (const resource of RESOURCES) {
      const crd = await committed(resource.plural);
      assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
      assert.deepEqual(structuralProblems(openApiSchema(crd)), []);
      const version = (crd.spec as { versions: Array<Record<string, unknown>> }).versions[0]!;
      assert.equal(version.name, 'v1alpha1');
      assert.deepEqual(version.subresources, { status: {} });
      assert.ok((version.additionalPrinterColumns as Array<{ name: string }>).some((c) => c.name === 'Phase'));
    }
  });

  it('accept the sample resources and refuse what the spec bounds (names 1-200, plans, languages, limits)', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const tenant = ajv.compile(openApiSchema(await committed('tenants')));
    const subTenant = ajv.compile(openApiSchema(await committed('subtenants')));
    assert.ok(tenant(validTenant), JSON.stringify(tenant.errors));
    assert.ok(subTenant(validSubTenant), JSON.stringify(subTenant.errors));
    const withSpec = (spec: Record<string, unknown>) => ({ ...validTenant, spec: { ...validTenant.spec, ...spec } });
    for (const bad of [
      withSpec({ plan: 'gold' }),
      withSpec({ displayName: '' }),
      withSpec({ displayName: 'x'.repeat(201) }),
      withSpec({ email: 'not an address' }),
      withSpec({ addons: ['telepathy'] }),
      withSpec({ limitOverrides: { maxChunks: -1 } }),
      withSpec({ translation: { preferred_language: 'pt' } }),
      { ...validTenant, spec: undefined },
    ]) {
      assert.equal(tenant(bad), false, JSON.stringify(bad.spec));
    }
    assert.equal(subTenant({ ...validSubTenant, spec: { ...validSubTenant.spec, name: 'x'.repeat(201) } }), false);
    assert.equal(subTenant({ ...validSubTenant, spec: { name: 'No tenant' } }), false);
    // The operator's types come from the same schemas: zod agrees with the CRD.
    assert.ok(tenantSpecSchema.safeParse(validTenant.spec).success);
    assert.ok(subTenantSpecSchema.safeParse(validSubTenant.spec).success);
    assert.equal(tenantSpecSchema.safeParse({ ...validTenant.spec, plan: 'gold' }).success, false);
  });

  it('check immutable fields with CEL rules, evaluated here as the API server evaluates them on update', async () => {
    const rules = async (plural: string) => {
      const spec = (openApiSchema(await committed(plural)).properties as Record<string, Schema>).spec!;
      return spec['x-kubernetes-validations'] as Array<{ rule: string; message: string }>;
    };
    const passes = (list: Array<{ rule: string }>, self: unknown, oldSelf: unknown) => list.every((r) => evaluate(r.rule, { self, oldSelf }) === true);
    const sub = await rules('subtenants');
    assert.ok(passes(sub, validSubTenant.spec, validSubTenant.spec));
    assert.ok(passes(sub, { ...validSubTenant.spec, name: 'Renamed', limits: {} }, validSubTenant.spec), 'names and limits may change');
    assert.equal(passes(sub, { ...validSubTenant.spec, tenantRef: { name: 'other' } }, validSubTenant.spec), false);
    assert.equal(passes(sub, { ...validSubTenant.spec, externalId: 'crm-43' }, validSubTenant.spec), false);
    const { externalId: _dropped, ...withoutExternalId } = validSubTenant.spec;
    assert.equal(passes(sub, withoutExternalId, validSubTenant.spec), false);
    const ten = await rules('tenants');
    assert.ok(passes(ten, { ...validTenant.spec, plan: 'standard' }, validTenant.spec), 'plans change');
    const { email: _email, ...withoutEmail } = validTenant.spec;
    assert.equal(passes(ten, withoutEmail, validTenant.spec), false);
  });
});
