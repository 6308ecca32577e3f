// Bundles the playground's TypeScript into static/dist/ (run by `npm run build`).
// Two entry points: the page itself and the graph-layout Web Worker (dagre runs off the UI thread).
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const watch = process.argv.includes("--watch");

/** @type {esbuild.BuildOptions} */
const options = {
  entryPoints: {
    playground: "static/src/main.ts",
    "layout-worker": "static/src/layout-worker.ts",
    train: "static/src/train/main.ts",
  },
  outdir: "static/dist",
  bundle: true,
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  metafile: true,
  logLevel: "info",
};

// Swagger UI for /docs, served from here so the API docs work offline (no CDN).
mkdirSync("static/dist/swagger", { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"]) {
  copyFileSync(`node_modules/swagger-ui-dist/${file}`, `static/dist/swagger/${file}`);
}

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  const result = await esbuild.build(options);
  const outputs = Object.entries(result.metafile.outputs).filter(([name]) => name.endsWith(".js"));
  for (const [name, info] of outputs) console.log(`${name}  ${(info.bytes / 1024).toFixed(1)} KiB`);
}
