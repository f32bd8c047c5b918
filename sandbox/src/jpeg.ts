import * as crypto from "node:crypto";
import * as jpeg from "jpeg-js";

/**
 * Stand-in dispute images: a card-like picture whose colours and caption derive from the scan
 * id, so every scan has its own recognizable image. Encoding is CPU-bound, hence the cache.
 */

export const WIDTH = 320;
export const HEIGHT = 200;
const CACHE_LIMIT = 500;

/** 3×5 bitmap glyphs for the hex digits of the caption. */
const GLYPHS: Record<string, string> = {
  0: "111101101101111", 1: "010110010010111", 2: "111001111100111", 3: "111001111001111",
  4: "101101111001001", 5: "111100111001111", 6: "111100111101111", 7: "111001010010010",
  8: "111101111101111", 9: "111101111001111", a: "010101111101101", b: "110101110101110",
  c: "011100100100011", d: "110101101101110", e: "111100110100111", f: "111100110100100",
};

const cache = new Map<string, Buffer>();

/** JPEG bytes of a scan's image. */
export function scanImage(scanId: string): Buffer {
  const cached = cache.get(scanId);
  if (cached) return cached;
  const bytes = render(scanId);
  const oldest = cache.keys().next();
  if (cache.size >= CACHE_LIMIT && !oldest.done) cache.delete(oldest.value);
  cache.set(scanId, bytes);
  return bytes;
}

export function forget(scanId: string): void {
  cache.delete(scanId);
  for (const key of largeCache.keys()) if (key.startsWith(`${scanId}:`)) largeCache.delete(key);
}

/**
 * Large images (benchmarks of whatever carries images): the scan's own picture, grown to an
 * exact byte size with JPEG comment segments (`FF FE`, which every decoder skips) right after
 * the start-of-image marker. The padding is random bytes, so nothing on the way can compress it
 * away, drawn once: every large image of every size reuses the same 64 KiB segment, and a
 * response is a list of references to it, never a fresh multi-megabyte buffer.
 */
export const MIN_LARGE_IMAGE_BYTES = 64 * 1024;
export const MAX_LARGE_IMAGE_BYTES = 64 * 1024 * 1024;
/** A comment segment at its largest: marker, a 16-bit length (counting itself), 65533 bytes. */
const FULL_SEGMENT_BYTES = 2 + 0xffff;
let fullSegment: Buffer | null = null;
const largeCache = new Map<string, readonly Buffer[]>();

function fullCommentSegment(): Buffer {
  if (!fullSegment) {
    const segment = Buffer.alloc(FULL_SEGMENT_BYTES);
    segment[0] = 0xff;
    segment[1] = 0xfe;
    segment.writeUInt16BE(0xffff, 2);
    crypto.randomFillSync(segment, 4);
    fullSegment = segment;
  }
  return fullSegment;
}

/** A comment segment of `total` bytes in all, 4 to 65537. */
function commentSegment(total: number): Buffer {
  if (total === FULL_SEGMENT_BYTES) return fullCommentSegment();
  const segment = Buffer.alloc(total);
  fullCommentSegment().copy(segment, 0, 0, total);
  segment.writeUInt16BE(total - 2, 2);
  return segment;
}

/** The parts of a scan's image of exactly `totalBytes` (from MIN_ to MAX_LARGE_IMAGE_BYTES). */
export function largeScanImage(scanId: string, totalBytes: number): readonly Buffer[] {
  const key = `${scanId}:${totalBytes}`;
  const cached = largeCache.get(key);
  if (cached) return cached;
  const base = scanImage(scanId);
  let padding = totalBytes - base.length;
  if (padding < 4) return [base];
  let full = Math.floor(padding / FULL_SEGMENT_BYTES);
  padding -= full * FULL_SEGMENT_BYTES;
  const tail: Buffer[] = [];
  if (padding > 0 && padding < 4) {
    // Too short for a segment of its own: share one full segment's worth between two.
    full -= 1;
    padding += FULL_SEGMENT_BYTES - 65533;
    tail.push(commentSegment(65533));
  }
  if (padding > 0) tail.push(commentSegment(padding));
  const parts = [base.subarray(0, 2), ...new Array<Buffer>(full).fill(fullCommentSegment()), ...tail, base.subarray(2)];
  const oldest = largeCache.keys().next();
  if (largeCache.size >= CACHE_LIMIT && !oldest.done) largeCache.delete(oldest.value);
  largeCache.set(key, parts);
  return parts;
}

type Put = (x: number, y: number, r: number, g: number, b: number) => void;

function render(scanId: string): Buffer {
  const digest = crypto.createHash("sha256").update(scanId).digest();
  // Mid-range channels keep white text readable on every gradient.
  const channel = (i: number) => 40 + (digest[i] % 150);
  const from = [channel(0), channel(1), channel(2)] as const;
  const to = [channel(3), channel(4), channel(5)] as const;
  const data = Buffer.alloc(WIDTH * HEIGHT * 4);

  const put: Put = (x, y, r, g, b) => {
    const i = (y * WIDTH + x) * 4;
    data[i] = r;
    data[i + 1] = g;
    data[i + 2] = b;
    data[i + 3] = 255;
  };

  const card = { x: 16, y: 10, w: 288, h: 180, r: 14 };
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      if (insideRounded(x, y, card)) {
        // A diagonal gradient between the two colours of this scan.
        const t = (x - card.x + (y - card.y)) / (card.w + card.h);
        put(x, y, from[0] + (to[0] - from[0]) * t, from[1] + (to[1] - from[1]) * t, from[2] + (to[2] - from[2]) * t);
      } else {
        put(x, y, 238, 240, 243);
      }
    }
  }
  // The chip, with its contact lines.
  for (let y = 62; y < 92; y++) {
    for (let x = 40; x < 80; x++) {
      const line = y === 72 || y === 82 || x === 53 || x === 66;
      if (line) put(x, y, 150, 120, 40);
      else put(x, y, 214, 180, 80);
    }
  }
  const hex = scanId.replace(/-/g, "");
  drawText(put, hex.slice(0, 8), 40, 118, 5);
  drawText(put, hex.slice(-4), 220, 160, 3);

  return Buffer.from(jpeg.encode({ data, width: WIDTH, height: HEIGHT }, 85).data);
}

function insideRounded(x: number, y: number, box: { x: number; y: number; w: number; h: number; r: number }): boolean {
  if (x < box.x || y < box.y || x >= box.x + box.w || y >= box.y + box.h) return false;
  const cx = Math.min(Math.max(x, box.x + box.r), box.x + box.w - box.r - 1);
  const cy = Math.min(Math.max(y, box.y + box.r), box.y + box.h - box.r - 1);
  return (x - cx) ** 2 + (y - cy) ** 2 <= box.r ** 2;
}

/** White text in the 3×5 font. */
function drawText(put: Put, text: string, left: number, top: number, scale: number): void {
  [...text.toLowerCase()].forEach((ch, index) => {
    const glyph = GLYPHS[ch];
    if (!glyph) return;
    const x0 = left + index * 4 * scale;
    for (let gy = 0; gy < 5; gy++) {
      for (let gx = 0; gx < 3; gx++) {
        if (glyph[gy * 3 + gx] !== "1") continue;
        for (let dy = 0; dy < scale; dy++) {
          for (let dx = 0; dx < scale; dx++) {
            const x = x0 + gx * scale + dx;
            const y = top + gy * scale + dy;
            if (x < WIDTH && y < HEIGHT) put(x, y, 255, 255, 255);
          }
        }
      }
    }
  });
}
