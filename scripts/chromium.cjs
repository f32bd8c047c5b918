// @ts-check
"use strict";

/**
 * The one place that finds a Chromium for every real-browser spec and the demo's smoke run.
 *
 * Order:
 *   1. CHROMIUM_PATH, when set (it must exist: an explicit choice never falls through silently);
 *   2. a system Chrome or Chromium (PATH, then the usual install locations);
 *   3. the headless Chromium shipped inside the `@sparticuz/chromium` npm package (a devDependency):
 *      its binary is brotli-packed in the package, so the first use unpacks it into a cache
 *      folder (about 15 s, once). Nothing is ever downloaded, at install time or later.
 *
 * Every launch is headless with --no-sandbox (root, containers), --disable-gpu and
 * --disable-background-networking (the machine may be offline: no update or telemetry calls).
 */

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const zlib = require("node:zlib");
const { pipeline } = require("node:stream/promises");

const CHROMIUM_ARGS = Object.freeze(["--no-sandbox", "--disable-gpu", "--disable-background-networking"]);

const SYSTEM_NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "chrome"];

function systemLocations() {
  if (process.platform === "darwin") {
    return [
      "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
      "/Applications/Chromium.app/Contents/MacOS/Chromium",
    ];
  }
  if (process.platform === "win32") {
    const roots = [process.env.PROGRAMFILES, process.env["PROGRAMFILES(X86)"], process.env.LOCALAPPDATA].filter(Boolean);
    return roots.map((root) => path.join(/** @type {string} */ (root), "Google", "Chrome", "Application", "chrome.exe"));
  }
  return [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome-stable",
    "/usr/bin/google-chrome",
    "/opt/google/chrome/chrome",
    "/snap/bin/chromium",
  ];
}

/** @param {string} file */
function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** @returns {string | undefined} */
function findSystemChromium() {
  const exts = process.platform === "win32" ? [".exe", ""] : [""];
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    for (const name of SYSTEM_NAMES) {
      for (const ext of exts) {
        const candidate = path.join(dir, name + ext);
        if (isExecutable(candidate)) return candidate;
      }
    }
  }
  return systemLocations().find(isExecutable);
}

/**
 * Where the packaged binary is unpacked: next to the package, under node_modules/.cache (where
 * build tools keep such things), else in the user's cache folder.
 * @param {string} packageDir
 * @param {string} version
 */
function cacheDirs(packageDir, version) {
  const nodeModules = path.dirname(path.dirname(packageDir)); // node_modules/@sparticuz/chromium -> node_modules
  const userCache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return [
    path.join(nodeModules, ".cache", "servicescan-chromium", version),
    path.join(userCache, "servicescan-chromium", version),
  ];
}

/** @returns {Promise<string | undefined>} */
async function unpackPackagedChromium() {
  if (process.platform !== "linux" || process.arch !== "x64") return undefined;
  /** @type {string} */
  let entry;
  try {
    // The package exports no package.json: find its folder from its entry point.
    entry = require.resolve("@sparticuz/chromium");
  } catch {
    return undefined;
  }
  /** @param {string} dir @returns {{ name?: string, version?: string } | undefined} */
  const manifest = (dir) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    } catch {
      return undefined;
    }
  };
  // Its build folders carry package.json files of their own: look for the one that names it.
  let packageDir = path.dirname(entry);
  while (manifest(packageDir)?.name !== "@sparticuz/chromium") {
    if (path.dirname(packageDir) === packageDir) return undefined;
    packageDir = path.dirname(packageDir);
  }
  const version = String(manifest(packageDir)?.version);
  const packed = path.join(packageDir, "bin", "chromium.br");
  if (!fs.existsSync(packed)) return undefined;
  const packedSize = fs.statSync(packed).size;

  /** @type {unknown[]} */
  const failures = [];
  for (const dir of cacheDirs(packageDir, version)) {
    const binary = path.join(dir, "chromium");
    // A marker written after the rename: a binary without it is a leftover of an interrupted run.
    const marker = path.join(dir, "chromium.ok");
    if (isExecutable(binary) && fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === String(packedSize)) {
      return binary;
    }
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
      // Unique name, then an atomic rename: specs running side by side may unpack at the same time.
      const partial = `${binary}.${process.pid}.${Date.now()}.partial`;
      await pipeline(fs.createReadStream(packed), zlib.createBrotliDecompress(), fs.createWriteStream(partial, { mode: 0o755 }));
      fs.renameSync(partial, binary);
      fs.writeFileSync(marker, String(packedSize));
      return binary;
    } catch (error) {
      failures.push(error);
    }
  }
  throw new Error(`Could not unpack the Chromium of @sparticuz/chromium ${version}: ${failures.map(String).join("; ")}`);
}

/**
 * @typedef {{ executablePath: string, source: "CHROMIUM_PATH" | "system" | "@sparticuz/chromium" }} FoundChromium
 */

/** @type {Promise<FoundChromium> | undefined} */
let found;

/**
 * Finds a Chromium (see the order above). The result is remembered for the process.
 * @returns {Promise<FoundChromium>}
 */
function findChromium() {
  found ??= (async () => {
    const fromEnv = process.env.CHROMIUM_PATH;
    if (fromEnv) {
      if (!isExecutable(fromEnv)) {
        throw new Error(`CHROMIUM_PATH is ${fromEnv}, which is not an executable file.`);
      }
      return { executablePath: fromEnv, source: "CHROMIUM_PATH" };
    }
    const system = findSystemChromium();
    if (system) return { executablePath: system, source: "system" };
    const packaged = await unpackPackagedChromium();
    if (packaged) return { executablePath: packaged, source: "@sparticuz/chromium" };
    throw new Error(
      "No Chromium found: set CHROMIUM_PATH, install Chrome or Chromium (Debian: apt-get install -y chromium), " +
        "or run npm install so that the @sparticuz/chromium devDependency is present (Linux x64 only)."
    );
  })();
  // A failed search may succeed after the user fixes it; do not remember failures.
  found.catch(() => {
    found = undefined;
  });
  return found;
}

/**
 * Launches headless Chromium through playwright-core with the project's flags.
 * @param {import("playwright-core").LaunchOptions} [options] extra launch options; `args` are added to ours
 * @returns {Promise<import("playwright-core").Browser>}
 */
async function launchChromium(options = {}) {
  const { executablePath, source } = await findChromium();
  const { chromium } = require("playwright-core");
  try {
    return await chromium.launch({
      headless: true,
      ...options,
      executablePath,
      args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`Chromium (${executablePath}, from ${source}) did not start: ${message}`);
  }
}

module.exports = { CHROMIUM_ARGS, findChromium, launchChromium };
