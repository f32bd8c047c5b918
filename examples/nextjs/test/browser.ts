import type { Browser } from "playwright-core"

/**
 * The repository's one browser finder (scripts/chromium.cjs): CHROMIUM_PATH, else a system
 * Chrome or Chromium, else the headless Chromium inside the @sparticuz/chromium devDependency,
 * launched headless with the project's flags. Nothing downloads a browser.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const finder: { launchChromium: () => Promise<Browser> } = require("../../../scripts/chromium.cjs")

export const launchChromium = (): Promise<Browser> => finder.launchChromium()
