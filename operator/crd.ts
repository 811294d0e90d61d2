import { z } from 'zod';
import { GROUP, type ResourceDefinition, VERSION } from './resources.js';

type Schema = Record<string, unknown>;

/**
 * A zod schema as a Kubernetes structural schema: OpenAPI v3 with a type on every node, no `$ref`,
 * `anyOf` of a type and null turned into `nullable`, and `additionalProperties: false` dropped (the
 * API server prunes unknown fields instead; it refuses the two together with `properties`).
 */
export function structuralSchema(schema: z.ZodType): Schema {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', unrepresentable: 'throw', reused: 'inline' }) as Schema;
  const definitions = { ...(json.definitions as Record<string, Schema> | undefined), ...(json.$defs as Record<string, Schema> | undefined) };
  return clean(json, definitions);
}

/** Formats the API server checks itself: their long generated patterns are left out. */
const CHECKED_FORMATS = new Set(['email', 'uuid', 'date-time']);

function clean(node: Schema, definitions: Record<string, Schema>): Schema {
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const target = definitions[ref.replace(/^#\/(definitions|\$defs)\//, '')];
    if (!target) throw new Error(`unresolved ${ref}`);
    return clean(target, definitions);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'id' || key === 'definitions' || key === '$defs') continue;
    if (key === 'pattern' && CHECKED_FORMATS.has(node.format as string)) continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, clean(v, definitions)]));
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) out[key] = clean(value as Schema, definitions);
    else if (key === 'allOf' && (value as Schema[]).length === 1) Object.assign(out, clean((value as Schema[])[0]!, definitions));
    else if (key === 'anyOf' || key === 'oneOf') {
      const options = (value as Schema[]).map((o) => clean(o, definitions));
      const nonNull = options.filter((o) => o.type !== 'null' && !(o.nullable === true && Object.keys(o).length === 1));
      if (nonNull.length === 1) Object.assign(out, nonNull[0], { nullable: true });
      else out[key] = options;
    } else out[key] = value;
  }
  return out;
}

/** The CustomResourceDefinition (apiextensions.k8s.io/v1) of a resource. */
export function customResourceDefinition(resource: ResourceDefinition): Schema {
  const spec = structuralSchema(resource.spec);
  if (resource.specRules.length) spec['x-kubernetes-validations'] = resource.specRules;
  const status = structuralSchema(resource.status);
  const conditions = (status.properties as Record<string, Schema> | undefined)?.conditions;
  if (conditions) Object.assign(conditions, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind: resource.kind, listKind: `${resource.kind}List`, plural: resource.plural, singular: resource.kind.toLowerCase(), shortNames: resource.shortNames },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: resource.printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec,
                status,
              },
            },
          },
        },
      ],
    },
  };
}
