// @ts-check
"use strict";

const { execFileSync } = require("node:child_process");
const path = require("node:path");

/**
 * Builds the sandbox (incrementally: a no-op when dist/ is current) before any spec loads it,
 * so a spec never runs against a stale build after an edit to src/.
 */
module.exports = function globalSetup() {
  const tsc = require.resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-b", path.join(__dirname, "..")], { stdio: "inherit" });
};
