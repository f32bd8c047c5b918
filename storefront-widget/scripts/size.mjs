// Prints the minified + gzipped size of the built entry (React and the Medusa SDK excluded,
// loader included). Same method as the comparison figures: esbuild --minify, gzip -9.
// The last line is exactly "<N> bytes min+gz".
import { build } from "esbuild";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const entry = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "index.mjs");
if (!existsSync(entry)) {
  console.error(`${entry} is missing; run "npm run build -w storefront-widget" first`);
  process.exit(1);
}
const out = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  format: "esm",
  write: false,
  external: ["react", "react/*", "react-dom", "@medusajs/js-sdk"],
  logLevel: "warning",
});
const code = out.outputFiles[0].contents;
const gz = gzipSync(code, { level: 9 }).length;
// Issue #29's line: 3,600 B for the main entry. The opt-in `./place-order` entry is printed on its own.
const po = await build({ entryPoints: [join(dirname(entry), "place-order.mjs")], bundle: true, minify: true, format: "esm", write: false, external: ["react", "react/*"], logLevel: "warning" });
console.log(`place-order entry: ${gzipSync(po.outputFiles[0].contents, { level: 9 }).length} bytes min+gz (loaded only by checkouts that use ServiceScanPlaceOrder)`);
// What a checkout that uses both entries loads: one bundle of the two (shared code once).
const both = await build({
  stdin: { contents: 'export * from "./index.mjs"; export * from "./place-order.mjs";', resolveDir: dirname(entry) },
  bundle: true, minify: true, format: "esm", write: false, external: ["react", "react/*", "react-dom", "@medusajs/js-sdk"], logLevel: "warning",
});
console.log(`main + place-order together: ${gzipSync(both.outputFiles[0].contents, { level: 9 }).length} bytes min+gz`);
console.log(`${code.length} bytes minified (budget: 3600 bytes min+gz)`);
console.log(`${gz} bytes min+gz`);
if (gz > 3600) process.exitCode = 1;
