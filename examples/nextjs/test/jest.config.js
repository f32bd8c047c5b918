const { join } = require("node:path")

/**
 * The example storefront's specs. They run from the repository root (Medusa's test runner boots
 * the app whose medusa-config.ts is there) but only look in this folder, so jest never crawls the
 * example's .next build.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: join(__dirname, "..", "..", ".."),
  roots: ["<rootDir>/examples/nextjs/test"],
  testMatch: ["<rootDir>/examples/nextjs/test/**/*.spec.ts"],
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
  testTimeout: 240_000,
}
