const { join } = require("node:path")

/**
 * The DTC starter spec. It runs from the repository root (Medusa's test runner boots the app whose
 * medusa-config.ts is there) but only looks in this folder; the starter's copy lives in a
 * temporary folder that run.mjs makes.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: join(__dirname, "..", ".."),
  roots: ["<rootDir>/integration-tests/dtc-starter"],
  testMatch: ["<rootDir>/integration-tests/dtc-starter/**/*.spec.ts"],
  transform: {
    "^.+\\.[cm]?[jt]sx?$": [
      "@swc/jest",
      {
        jsc: {
          parser: { syntax: "typescript", tsx: true, decorators: true },
          target: "es2022",
        },
      },
    ],
  },
  testEnvironment: "node",
  setupFiles: ["<rootDir>/integration-tests/setup.js"],
  testTimeout: 600_000,
}
