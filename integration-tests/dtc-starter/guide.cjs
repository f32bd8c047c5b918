// @ts-check
"use strict";

// Reads docs/storefront-dtc-starter.md, so the suite tests the guide a store owner follows and not
// a copy of it: the patch in its <details> block, the starter commit it is pinned to, and the
// file-by-file sections shown after the patch.

const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const GUIDE = join(__dirname, "..", "..", "docs", "storefront-dtc-starter.md");

/** The guide's Markdown. */
function readGuide() {
  return readFileSync(GUIDE, "utf8");
}

/**
 * The whole patch (`servicescan.patch`): the one ```diff block inside the guide's
 * `<details><summary>servicescan.patch …</summary>`. Throws when the guide has none.
 * @param {string} guide
 */
function extractPatch(guide) {
  const match = /<summary>servicescan\.patch[^<]*<\/summary>\s*```diff\n([\s\S]*?)\n```/.exec(guide);
  if (!match) throw new Error("docs/storefront-dtc-starter.md has no ```diff block under <summary>servicescan.patch");
  return match[1] + "\n";
}

/**
 * The starter commit the guide is written against: the 40-hex id in its opening paragraph.
 * @param {string} guide
 */
function pinnedCommit(guide) {
  const match = /\*\*commit \[`([0-9a-f]{7,})`\][^(]*\(https:\/\/github\.com\/medusajs\/dtc-starter\/tree\/([0-9a-f]{40})/.exec(guide);
  if (!match) throw new Error("docs/storefront-dtc-starter.md names no pinned dtc-starter commit");
  return { short: match[1], full: match[2] };
}

/**
 * Every fenced block after the patch's <details> (the file-by-file walk-through), with its
 * language: the guide says each change is "shown again, file by file", so each must be in the patch.
 * @param {string} guide
 * @returns {{ lang: string, body: string }[]}
 */
function fileSections(guide) {
  const after = guide.slice(guide.indexOf("</details>"));
  const end = after.indexOf("\n## 3.");
  const walk = end === -1 ? after : after.slice(0, end);
  return [...walk.matchAll(/```(diff|ts|tsx)\n([\s\S]*?)\n```/g)].map((m) => ({ lang: m[1], body: m[2] }));
}

module.exports = { GUIDE, readGuide, extractPatch, pinnedCommit, fileSections };
