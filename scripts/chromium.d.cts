import type { Browser, LaunchOptions } from "playwright-core";

/** The flags every launch carries: --no-sandbox, --disable-gpu, --disable-background-networking. */
export declare const CHROMIUM_ARGS: readonly string[];

export interface FoundChromium {
  executablePath: string;
  source: "CHROMIUM_PATH" | "system" | "@sparticuz/chromium";
}

/** CHROMIUM_PATH, else a system Chrome/Chromium, else the one inside @sparticuz/chromium (unpacked once). */
export declare function findChromium(): Promise<FoundChromium>;

/** Headless Chromium through playwright-core, with CHROMIUM_ARGS plus `options.args`. */
export declare function launchChromium(options?: LaunchOptions): Promise<Browser>;
