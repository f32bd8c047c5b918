/**
 * @jest-environment node
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

// Issue #29's line: the main entry (loader and device id included) at most 3,600 B min+gz, measured by
// scripts/size.mjs on the build the widget suite makes first (`npm test -- widget` runs build.mjs).
describe("bundle size", () => {
  it("keeps the main entry within 3,600 bytes min+gz, and prints the place-order entry's figures", () => {
    let out: string;
    try {
      out = execFileSync(process.execPath, [join(__dirname, "..", "scripts", "size.mjs")], { encoding: "utf8" });
    } catch (error) {
      throw new Error(`size.mjs failed (over budget?): ${String((error as { stdout?: string }).stdout ?? error)}`);
    }
    const main = Number(/^(\d+) bytes min\+gz$/m.exec(out)?.[1]);
    expect(main).toBeGreaterThan(1_000);
    expect(main).toBeLessThanOrEqual(3_600);
    expect(out).toMatch(/^place-order entry: \d+ bytes min\+gz/m);
    expect(out).toMatch(/^main \+ place-order together: \d+ bytes min\+gz$/m);
  });
});
