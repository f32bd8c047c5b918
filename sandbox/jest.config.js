// @ts-check
"use strict";

/**
 * The specs run against the build (dist/), the code that is published and that the plugin's
 * specs, the demo and the CLI load, so the global setup brings it up to date first.
 * @type {import("jest").Config}
 */
module.exports = {
  rootDir: __dirname,
  testEnvironment: "node",
  transform: {},
  globalSetup: "<rootDir>/test/global-setup.js",
  testMatch: ["<rootDir>/test/**/*.test.js"],
  // Above the specs' own waits (30 s for a cold CLI start or a form result on a busy machine),
  // so that those give their own, clearer error first.
  testTimeout: 60000,
};
