import openapiTS, { astToString } from 'openapi-typescript';

/** The TypeScript types of an OpenAPI document (openapi-typescript), as client/openapi.d.ts holds them. */
export async function clientTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { alphabetize: true, defaultNonNullable: false });
  return `// Generated from Lore's /v1/openapi.json by npm run client:generate. Do not edit.\n\n${astToString(ast)}`;
}
