/**
 * @jest-environment node
 */
// Type-level checks, run with the real compiler against the built declarations:
// - ESM (.mts) and CommonJS (.cts) consumers resolve the right .d.mts/.d.ts under NodeNext;
// - the real @medusajs/js-sdk client, StoreCart and StorePaymentSession fit the widget's types;
// - the package itself (sources and specs) type-checks under `strict`.
import { execFile } from "node:child_process";
import { join } from "node:path";

const root = join(__dirname, "..");
const tsc = require.resolve("typescript/bin/tsc");

/** Resolves with the compiler's complaints ("" when the project type-checks). */
const typecheck = (project: string) =>
  new Promise<string>((resolve) =>
    execFile(process.execPath, [tsc, "-p", join(root, project)], { cwd: root }, (error, stdout, stderr) =>
      resolve(error ? `${stdout}${stderr}` || String(error) : ""),
    ),
  );

const PROJECTS = {
  "ESM and CJS consumers under NodeNext": "test/fixtures/types/tsconfig.json",
  "a storefront using the real @medusajs/js-sdk": "test/fixtures/types/tsconfig.medusa.json",
  "the package sources and specs (strict)": "tsconfig.json",
};
let results: Record<string, string>;

// The three compilers run in parallel: each takes several seconds on its own.
beforeAll(async () => {
  const entries = Object.entries(PROJECTS);
  const outputs = await Promise.all(entries.map(([, project]) => typecheck(project)));
  results = Object.fromEntries(entries.map(([name], i) => [name, outputs[i]]));
}, 120_000);

describe("type declarations", () => {
  it.each(Object.keys(PROJECTS))("type-check: %s", (name) => {
    expect(results[name]).toBe("");
  });
});
