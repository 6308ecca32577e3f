// Bundles the pages' TypeScript into static/dist/ (run by `npm run build`). Entry points: the
// pages and the graph-layout Web Worker (dagre runs off the UI thread). Every bundle is named by
// its content (`playground-5XGJ2ZQK.js`), so the server can let browsers keep it forever
// (`Cache-Control: immutable`); `static/dist/manifest.json` maps the plain names the templates
// use (`playground.js`) to them. Stylesheets keep their names (the pages' code loads some by
// URL): the server has browsers revalidate them instead. Every text file under static/dist/ is
// also written pre-compressed (`.br`, `.gz`), for the server to send as it is.
// `--tests` instead bundles the DOM-free modules' unit tests (static/tests/*.test.ts) for Node's
// own test runner, into build/frontend-tests/ (run by `npm test`).
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, extname, join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const watch = process.argv.includes("--watch");
const tests = process.argv.includes("--tests");
const DIST = "static/dist";

/** Options every bundle shares. */
const common = {
  outdir: DIST,
  bundle: true,
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  metafile: true,
  logLevel: "info",
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
};

/** The layout worker, built first: the pages load it by its hashed name. */
const workerOptions = { ...common, entryPoints: { "layout-worker": "static/src/graph/layout-worker.ts" } };

/** The pages. */
function pageOptions(workerFile) {
  return {
    ...common,
    entryPoints: {
      playground: "static/src/playground/main.ts",
      train: "static/src/train/main.ts",
      notebook: "static/src/notebook/main.ts",
    },
    define: { LAYOUT_WORKER_URL: JSON.stringify(`./${workerFile}`) },
  };
}

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
  define: { LAYOUT_WORKER_URL: JSON.stringify("./layout-worker.js") },
};

function copyAssets() {
  // Swagger UI for /docs, served from here so the API docs work offline (no CDN).
  mkdirSync(`${DIST}/swagger`, { recursive: true });
  for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"]) {
    copyFileSync(`node_modules/swagger-ui-dist/${file}`, `${DIST}/swagger/${file}`);
  }
  // KaTeX's stylesheet and fonts for the walk's formulas, served from here (no CDN). Browsers
  // take the first format they support from the stylesheet's list, woff2, so only it is copied.
  mkdirSync(`${DIST}/katex/fonts`, { recursive: true });
  copyFileSync("node_modules/katex/dist/katex.min.css", `${DIST}/katex/katex.min.css`);
  copyFileSync("node_modules/katex/LICENSE", `${DIST}/katex/LICENSE`);
  for (const font of readdirSync("node_modules/katex/dist/fonts").filter((name) => name.endsWith(".woff2"))) {
    copyFileSync(`node_modules/katex/dist/fonts/${font}`, `${DIST}/katex/fonts/${font}`);
  }
}

/** entry name -> output file name, from a build's metafile. */
function outputsByEntry(metafile) {
  const byEntry = {};
  for (const [file, info] of Object.entries(metafile.outputs)) {
    if (!info.entryPoint || file.endsWith(".map")) continue;
    const name = basename(file).replace(/-[A-Z0-9]{8}(\.[a-z]+)$/, "$1");
    byEntry[name] = relative(DIST, file);
  }
  return byEntry;
}

/** `manifest.json`: plain name -> hashed file, for the templates. */
function writeManifest(...metafiles) {
  const manifest = {};
  for (const metafile of metafiles) {
    Object.assign(manifest, outputsByEntry(metafile));
  }
  writeFileSync(`${DIST}/manifest.json`, JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

const COMPRESSIBLE = new Set([".js", ".css", ".map", ".txt", ".svg", ".json"]);

/** Brotli (quality 11) and gzip (level 9) next to every text file under `dir`, once, at build
 * time: the server sends them as they are instead of compressing on every request. */
function precompress(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      precompress(path);
    } else if (COMPRESSIBLE.has(extname(entry.name))) {
      const data = readFileSync(path);
      writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
      writeFileSync(
        `${path}.br`,
        brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      );
    }
  }
}

/** Writes the manifest and the compressed copies after every build of the pages (so that
 * `--watch` keeps them current too). */
function finishing(workerMeta) {
  return {
    name: "manifest-and-compression",
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length || !result.metafile) return;
        const manifest = writeManifest(workerMeta, result.metafile);
        precompress(DIST);
        for (const name of ["playground.js", "train.js"]) {
          const file = manifest[name];
          const raw = readFileSync(`${DIST}/${file}`).length;
          const br = readFileSync(`${DIST}/${file}.br`).length;
          console.log(`${file}  ${(raw / 1024).toFixed(1)} KiB (brotli ${(br / 1024).toFixed(1)} KiB)`);
        }
      });
    },
  };
}

if (tests) {
  // A test renamed or removed must not run again from an earlier bundle.
  rmSync(testOptions.outdir, { recursive: true, force: true });
  await esbuild.build(testOptions);
} else {
  // Outputs are named by content: drop the previous build's, or they would pile up.
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  copyAssets();
  const worker = await esbuild.build(workerOptions);
  const workerFile = outputsByEntry(worker.metafile)["layout-worker.js"];
  const options = { ...pageOptions(workerFile), plugins: [finishing(worker.metafile)] };
  if (watch) {
    // The worker is built once; restart the watch after changing it.
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}
