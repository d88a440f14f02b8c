// `npm run check:cycles` (a stage of `npm test`): no import cycle anywhere in the code, type-only imports
// included (docs/design.md, Layers). Which layer may import which is ESLint's (eslint.config.mjs); this
// file only forbids circles, which a per-file lint rule cannot see.
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A module must not reach itself through its imports: move the shared part down a layer, or pass it in.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^server/generated/" },
    // Type-only imports count: a type cycle is still a knot in the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".mjs", ".js"] },
  },
};
