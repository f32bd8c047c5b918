const { loadEnv } = require("@medusajs/framework/utils")
loadEnv("test", process.cwd())

/**
 * One config, three kinds of suite, chosen by TEST_TYPE (as in Medusa's plugin starter):
 * - unit: wire-level and pure specs next to the code (`src/**\/__tests__/*.unit.spec.ts`);
 * - integration:modules: moduleIntegrationTestRunner specs on real PostgreSQL;
 * - integration:http: medusaIntegrationTestRunner specs booting the whole app.
 * `npm test` (scripts/test.mjs) runs all of them against one throw-away database server.
 */
const testMatch = {
  unit: [
    "<rootDir>/src/**/__tests__/**/*.unit.spec.[jt]s?(x)",
    // The benches' own arithmetic (integration-tests/bench/precision.ts).
    "<rootDir>/integration-tests/bench/__tests__/*.unit.spec.[jt]s",
  ],
  "integration:modules": ["<rootDir>/src/modules/*/__tests__/**/*.spec.[jt]s"],
  "integration:http": ["<rootDir>/integration-tests/http/**/*.spec.[jt]s"],
  // Benchmarks boot the app like the http suites but only print figures (scripts/bench.mjs).
  bench: [`<rootDir>/integration-tests/bench/${process.env.BENCH ?? "*"}.bench.[jt]s`],
}[process.env.TEST_TYPE ?? "unit"]

if (!testMatch) {
  throw new Error(`Unknown TEST_TYPE ${process.env.TEST_TYPE}`)
}

module.exports = {
  transform: {
    "^.+\\.[cm]?[jt]sx?$": [
      "@swc/jest",
      {
        jsc: {
          parser: { syntax: "typescript", tsx: true, decorators: true },
          transform: { react: { runtime: "automatic" } },
          target: "es2022",
        },
      },
    ],
  },
  // msw 2 depends on a few ESM-only packages; compile those to CommonJS like our sources.
  transformIgnorePatterns: ["/node_modules/(?!(rettime|until-async|@open-draft/deferred-promise)/)"],
  testEnvironment: "node",
  moduleFileExtensions: ["js", "mjs", "cjs", "ts", "tsx", "json"],
  modulePathIgnorePatterns: ["dist/", "<rootDir>/.medusa/", "<rootDir>/sandbox/", "<rootDir>/storefront-widget/"],
  setupFiles: ["<rootDir>/integration-tests/setup.js"],
  testMatch,
  testTimeout: process.env.TEST_TYPE === "unit" ? 15_000 : process.env.TEST_TYPE === "bench" ? 1_800_000 : 120_000,
}
