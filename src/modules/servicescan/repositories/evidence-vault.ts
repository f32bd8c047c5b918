import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { DisputeCase, ScanEvidence } from "../models"
import type { ImageSource, SealedFileSwap } from "../types"
import { sqlNames } from "./names"

const E = sqlNames(ScanEvidence, ["id", "scan_id", "ground_truth", "archived_file_id", "archive_key", "deleted_at", "updated_at"])
const D = sqlNames(DisputeCase, ["id", "pack_file_id", "pack_key", "updated_at"])

/** Where each kind of sealed file is stored: its row's table, and the columns of the file, its key, the id and the last change. */
const STORED = {
  "scan-image": { table: E.table, file: E.col.archived_file_id, key: E.col.archive_key, id: E.col.id, updated: E.col.updated_at },
  "evidence-pack": { table: D.table, file: D.col.pack_file_id, key: D.col.pack_key, id: D.col.id, updated: D.col.updated_at },
} as const

/** The reads and writes of where sealed evidence is kept: archived scan images and evidence packs. */
export class EvidenceVaultSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * The evidence rows of a scan, as the admin image proxy needs them (none: not this store's
   * scan). One indexed read in SQL: an evidence page asks for its thumbnails all at once, and
   * their setups run one after the other on the server's thread, so the ORM's list (about 3 ms
   * of CPU a call, measured with `BENCH_PROFILE` on `bench:image-proxy`) held back the first
   * byte of the last image by the others' lists.
   */
  async listImageSources(scanId: string, context: Context): Promise<ImageSource[]> {
    return await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT ${E.col.id}, ${E.col.ground_truth}, ${E.col.archived_file_id}, ${E.col.archive_key}
         FROM ${E.table} WHERE ${E.col.scan_id} = ? AND ${E.col.deleted_at} IS NULL
        LIMIT 20`,
      [scanId.toLowerCase()]
    )
  }

  /**
   * Stores new sealed files and keys on rows that still hold what the caller
   * read (compare-and-set, one statement), and answers the ids swapped.
   */
  async swap(kind: keyof typeof STORED, swaps: readonly SealedFileSwap[], context: Context): Promise<string[]> {
    if (!swaps.length) {
      return []
    }
    const { table, file, key, id, updated } = STORED[kind]
    const values = swaps.map(() => "(?::text, ?::text, ?::text, ?::text, ?::text)").join(", ")
    const rows: { id: string }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${table} AS t
          SET ${file} = v.next_file, ${key} = v.next_key, ${updated} = now()
         FROM (VALUES ${values}) AS v(id, expected_file, expected_key, next_file, next_key)
        WHERE t.${id} = v.id AND t.${file} = v.expected_file AND t.${key} IS NOT DISTINCT FROM v.expected_key
        RETURNING t.${id} AS id`,
      swaps.flatMap((swap) => [swap.id, swap.expected.file_id, swap.expected.key, swap.next.file_id, swap.next.key])
    )
    return rows.map((row) => row.id)
  }
}
