import { existsSync } from "node:fs"

/**
 * The Chromium the spec drives. Nothing downloads a browser: CHROMIUM_PATH, else Debian's.
 * (One function, so the repository's shared finder can replace it in one place.)
 */
export function findChromium(): string {
  const path = process.env.CHROMIUM_PATH || "/usr/bin/chromium"
  if (!existsSync(path)) {
    throw new Error(`No Chromium at ${path}: set CHROMIUM_PATH, or install Debian's (apt-get install -y chromium)`)
  }
  return path
}

/** Headless, as every real-browser spec of the project launches it. */
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
