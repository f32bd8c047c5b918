/** Jest config for the storefront widget: @swc/jest for TS/TSX, jsdom unless a spec asks for node. */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: "jsdom",
  testMatch: ["<rootDir>/test/**/*.test.{ts,tsx}"],
  transform: {
    "^.+\\.(ts|tsx)$": [
      "@swc/jest",
      {
        jsc: {
          parser: { syntax: "typescript", tsx: true },
          transform: { react: { runtime: "automatic" } },
          target: "es2020",
        },
        module: { type: "commonjs" },
      },
    ],
  },
  // Sources import "./x.js" (what Node ESM and the .d.mts need); resolve those to the .ts files.
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
};
