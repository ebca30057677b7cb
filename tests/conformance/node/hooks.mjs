// Resolves the conformance suite's `fs` to fs.mjs (node:fs with globSync); nothing else changes.
const fsWithGlobSync = new URL('./fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
    const fromSuite = context.parentURL?.includes('/@modelcontextprotocol/conformance/');
    if (fromSuite && (specifier === 'fs' || specifier === 'node:fs'))
        return { url: fsWithGlobSync, shortCircuit: true };
    return nextResolve(specifier, context);
}
