// @ts-check
"use strict";

/**
 * What the package publishes and where its entry points lead: the build, with declarations,
 * and nothing from test/ or src/.
 */

const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..");
const pkg = require("../package.json");

test("main, types, exports and bin point at files of the build", () => {
  const targets = [pkg.main, pkg.types, pkg.exports["."].default, pkg.exports["."].types, pkg.bin["servicescan-sandbox"]];
  for (const target of targets) {
    expect(path.normalize(target)).toMatch(/^dist[/\\]/);
    expect(fs.existsSync(path.join(ROOT, target))).toBe(true);
  }
  expect(require.resolve("servicescan-sandbox")).toBe(fs.realpathSync(path.join(ROOT, "dist", "index.js")));
  expect(typeof require("servicescan-sandbox").startSandbox).toBe("function");
  expect(fs.readFileSync(path.join(ROOT, pkg.bin["servicescan-sandbox"]), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
});

test("src/ holds TypeScript only", () => {
  // Every file, in the processors' folders (src/processors/<name>/) too.
  const sources = fs
    .readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => fs.statSync(path.join(ROOT, "src", f)).isFile());
  expect(sources.filter((f) => !f.endsWith(".ts"))).toEqual([]);
});

test("the tarball holds the build, its declarations and the README, and no tests or sources", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
  const files = JSON.parse(out)[0].files.map((/** @type {{ path: string }} */ f) => f.path).sort();
  expect(files).toContain("dist/index.js");
  expect(files).toContain("dist/index.d.ts");
  expect(files).toContain("dist/cli.js");
  expect(files).toContain("README.md");
  expect(files).toContain("LICENSE");
  expect(files).toContain("package.json");
  const unexpected = files.filter((/** @type {string} */ f) => !/^dist\/([\w.-]+\/)*[\w.-]+\.(js|d\.ts)$/.test(f) && !["README.md", "LICENSE", "package.json"].includes(f));
  expect(unexpected).toEqual([]);
  // Every module ships with its declarations.
  const modules = files.filter((/** @type {string} */ f) => f.endsWith(".js"));
  for (const js of modules) expect(files).toContain(js.replace(/\.js$/, ".d.ts"));
});
