import { randomFillSync } from "node:crypto"

/** Crockford's base 32, as ULIDs spell them. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const pool = Buffer.alloc(4096)
let used = pool.length

/**
 * An id in the form Medusa's DML gives a row (`<prefix>_<ULID>`: 48 bits of
 * milliseconds, then 80 random bits), for the rows the module inserts many at
 * a time. Medusa's generator (the `ulid` package) asks the operating system
 * for one random byte per character, sixteen calls an id, which a bulk insert
 * of thousands of rows feels (measured in bench/README.md, `bench:chargebacks`);
 * here one draw of 4 KB serves 256 ids.
 */
export function newEntityId(prefix: string): string {
  let time = Date.now()
  let id = ""
  for (let i = 0; i < 10; i++) {
    id = ALPHABET[time % 32] + id
    time = Math.floor(time / 32)
  }
  if (used + 16 > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  for (let i = 0; i < 16; i++) {
    // 256 is a multiple of 32: five bits of each byte are uniform.
    id += ALPHABET[pool[used++] & 31]
  }
  return `${prefix}_${id}`
}
