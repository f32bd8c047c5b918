// Builds dist/: ESM + CJS bundles (esbuild) and type declarations (tsc).
// Usage: node build.mjs
// It reports on stderr only: it runs as the prepack script, and `npm pack --json` must print
// nothing but its JSON on stdout.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });

const shared = {
  entryPoints: [join(root, "src/index.ts")],
  bundle: true,
  // Peers stay imports; nothing else is bundled because nothing else is imported.
  external: ["react", "react/*", "react-dom", "@medusajs/js-sdk"],
  jsx: "automatic",
  target: "es2020",
  platform: "neutral",
  sourcemap: true,
  // Bundling drops module-level directives, so the Next.js client boundary is re-added here.
  banner: { js: '"use client";' },
  logLevel: "warning",
};
// One bundle per entry: `.` (client components), `./place-order` (client) and `./server` (server only).
for (const [name, client] of [["index", true], ["place-order", true], ["server", false]]) {
  const entry = { ...shared, entryPoints: [join(root, `src/${name}.${name == "place-order" ? "tsx" : "ts"}`)] };
  if (!client) delete entry.banner;
  await build({ ...entry, format: "esm", outfile: join(dist, `${name}.mjs`) });
  await build({ ...entry, format: "cjs", outfile: join(dist, `${name}.cjs`) });
}

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
try {
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: ["ignore", process.stderr, process.stderr] });
} catch {
  console.error("build.mjs: tsc failed to emit declarations (errors above)");
  process.exit(1);
}

// The .d.ts files are CommonJS-flavoured (the package has no "type": "module"). ESM consumers under
// moduleResolution node16/nodenext need ESM-flavoured twins: copy each to .d.mts with ".mjs" specifiers.
const types = join(dist, "types");
for (const file of readdirSync(types).filter((f) => f.endsWith(".d.ts"))) {
  const text = readFileSync(join(types, file), "utf8").replace(/(["'])(\.\.?\/[^"']+)\.js\1/g, "$1$2.mjs$1");
  writeFileSync(join(types, file.replace(/\.d\.ts$/, ".d.mts")), text);
}
console.error("built dist/{index,place-order,server}.{mjs,cjs}, dist/types");
