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
console.log(`${code.length} bytes minified (budget: 3500 bytes min+gz)`);
console.log(`${gz} bytes min+gz`);
if (gz > 3500) process.exitCode = 1;
