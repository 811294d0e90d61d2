/**
 * The entry script (for `new Worker(source, { eval: true })`) of a worker thread that runs a
 * TypeScript module. On Node 20 tsx's `--import` hooks are not active inside worker threads (tsx
 * registers them on the main thread only), so the worker registers tsx itself to load the module,
 * the same under `tsx api/main.ts` and under mocha. Modules in `preload` are imported before that,
 * without tsx's hooks: loading a large JavaScript library through them takes far longer (pdf.js's
 * 3 MB: seconds instead of a tenth of one). tsx is unregistered once the module has loaded.
 */
export function typescriptWorkerSource(module: URL, preload: readonly string[] = []): string {
  const preloads = preload.map((specifier) => `.then(() => import(${JSON.stringify(import.meta.resolve(specifier))}))`).join('');
  // Compiled (npm run build): the module is JavaScript, and tsx is not needed.
  if (module.pathname.endsWith('.js')) return `Promise.resolve()${preloads}.then(() => import(${JSON.stringify(module.href)}));`;
  return `
Promise.resolve()${preloads}
  .then(() => import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}))
  .then(async (tsx) => {
    const unregister = tsx.register();
    try {
      await import(${JSON.stringify(module.href)});
    } finally {
      await unregister();
    }
  });
`;
}

/**
 * A module next to the caller, by its name without extension: `name.ts` when the caller runs from
 * the TypeScript sources (tsx), `name.js` when it runs compiled (`npm run build`, the image).
 */
export function siblingModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}
