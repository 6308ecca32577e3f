// Bundles the playground's TypeScript into static/dist/ (run by `npm run build`).
// Entry points: the pages and the graph-layout Web Worker (dagre runs off the UI thread).
// `--tests` instead bundles the DOM-free modules' unit tests (static/tests/*.test.ts) for Node's
// own test runner, into build/frontend-tests/ (run by `npm test`).
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";

const watch = process.argv.includes("--watch");
const tests = process.argv.includes("--tests");

/** @type {esbuild.BuildOptions} */
const options = {
  entryPoints: {
    playground: "static/src/main.ts",
    "layout-worker": "static/src/layout-worker.ts",
    train: "static/src/train/main.ts",
    notebook: "static/src/notebook.ts",
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

/** @type {esbuild.BuildOptions} */
const testOptions = {
  entryPoints: readdirSync("static/tests")
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => `static/tests/${name}`),
  outdir: "build/frontend-tests",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  format: "esm",
  platform: "node",
  target: ["node20"],
  sourcemap: "inline",
  logLevel: "warning",
};

function copyAssets() {
  // Swagger UI for /docs, served from here so the API docs work offline (no CDN).
  mkdirSync("static/dist/swagger", { recursive: true });
  for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"]) {
    copyFileSync(`node_modules/swagger-ui-dist/${file}`, `static/dist/swagger/${file}`);
  }
  // KaTeX's stylesheet and fonts for the walk's formulas, served from here (no CDN). Browsers
  // take the first format they support from the stylesheet's list, woff2, so only it is copied.
  mkdirSync("static/dist/katex/fonts", { recursive: true });
  copyFileSync("node_modules/katex/dist/katex.min.css", "static/dist/katex/katex.min.css");
  copyFileSync("node_modules/katex/LICENSE", "static/dist/katex/LICENSE");
  for (const font of readdirSync("node_modules/katex/dist/fonts").filter((name) => name.endsWith(".woff2"))) {
    copyFileSync(`node_modules/katex/dist/fonts/${font}`, `static/dist/katex/fonts/${font}`);
  }
}

if (tests) {
  await esbuild.build(testOptions);
} else if (watch) {
  copyAssets();
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  copyAssets();
  const result = await esbuild.build(options);
  const outputs = Object.entries(result.metafile.outputs).filter(([name]) => name.endsWith(".js"));
  for (const [name, info] of outputs) console.log(`${name}  ${(info.bytes / 1024).toFixed(1)} KiB`);
}
