const { join } = require("node:path")

/**
 * The system suites: the app as real `medusa start` processes (server, worker,
 * several instances) against the real sandbox and PostgreSQL (and Redis for the
 * production topology), then the secrets scan over everything the runs left.
 * One spec per suite, chosen by SYSTEM_SUITE (scripts/test.mjs sets it):
 * topology, instances, faults, secrets.
 */
const suite = process.env.SYSTEM_SUITE ?? "*"

module.exports = {
  rootDir: join(__dirname, "..", ".."),
  transform: {
    "^.+\\.[cm]?[jt]sx?$": [
      "@swc/jest",
      { jsc: { parser: { syntax: "typescript", decorators: true }, target: "es2022" } },
    ],
  },
  testEnvironment: "node",
  moduleFileExtensions: ["js", "mjs", "cjs", "ts", "json"],
  modulePathIgnorePatterns: ["<rootDir>/.medusa/", "<rootDir>/sandbox/dist/", "<rootDir>/demo/.medusa/"],
  testMatch: [`<rootDir>/integration-tests/system/${suite}.spec.ts`],
  // Each suite bounds its own waits; this only stops a hung run.
  testTimeout: 60 * 60 * 1000,
}
