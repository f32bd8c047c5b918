// @ts-check
"use strict";

/** @type {import("jest").Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: "node",
  transform: {},
  testMatch: ["<rootDir>/test/**/*.test.js"],
  testTimeout: 20000,
};
