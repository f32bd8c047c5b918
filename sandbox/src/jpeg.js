// @ts-check
"use strict";

const crypto = require("node:crypto");
const jpeg = require("jpeg-js");

/**
 * Stand-in dispute images: a card-like picture whose colours and caption derive from the scan
 * id, so every scan has its own recognizable image. Encoding is CPU-bound, hence the cache.
 */

const WIDTH = 320;
const HEIGHT = 200;
const CACHE_LIMIT = 500;

/** 3×5 bitmap glyphs for the hex digits of the caption. */
const GLYPHS = /** @type {Record<string, string>} */ ({
  0: "111101101101111", 1: "010110010010111", 2: "111001111100111", 3: "111001111001111",
  4: "101101111001001", 5: "111100111001111", 6: "111100111101111", 7: "111001010010010",
  8: "111101111101111", 9: "111101111001111", a: "010101111101101", b: "110101110101110",
  c: "011100100100011", d: "110101101101110", e: "111100110100111", f: "111100110100100",
});

/** @type {Map<string, Buffer>} */
const cache = new Map();

/**
 * @param {string} scanId
 * @returns {Buffer} JPEG bytes
 */
function scanImage(scanId) {
  const cached = cache.get(scanId);
  if (cached) return cached;
  const bytes = render(scanId);
  if (cache.size >= CACHE_LIMIT) cache.delete(/** @type {string} */ (cache.keys().next().value));
  cache.set(scanId, bytes);
  return bytes;
}

/** @param {string} scanId */
function forget(scanId) {
  cache.delete(scanId);
}

/**
 * @param {string} scanId
 */
function render(scanId) {
  const digest = crypto.createHash("sha256").update(scanId).digest();
  // Mid-range channels keep white text readable on every gradient.
  const from = [digest[0], digest[1], digest[2]].map((c) => 40 + (c % 150));
  const to = [digest[3], digest[4], digest[5]].map((c) => 40 + (c % 150));
  const data = Buffer.alloc(WIDTH * HEIGHT * 4);

  /** @param {number} x @param {number} y @param {number} r @param {number} g @param {number} b */
  const put = (x, y, r, g, b) => {
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

/**
 * @param {number} x
 * @param {number} y
 * @param {{ x: number, y: number, w: number, h: number, r: number }} box
 */
function insideRounded(x, y, box) {
  if (x < box.x || y < box.y || x >= box.x + box.w || y >= box.y + box.h) return false;
  const cx = Math.min(Math.max(x, box.x + box.r), box.x + box.w - box.r - 1);
  const cy = Math.min(Math.max(y, box.y + box.r), box.y + box.h - box.r - 1);
  return (x - cx) ** 2 + (y - cy) ** 2 <= box.r ** 2;
}

/**
 * White text in the 3×5 font.
 * @param {(x: number, y: number, r: number, g: number, b: number) => void} put
 * @param {string} text
 * @param {number} left
 * @param {number} top
 * @param {number} scale
 */
function drawText(put, text, left, top, scale) {
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

module.exports = { scanImage, forget, WIDTH, HEIGHT };
