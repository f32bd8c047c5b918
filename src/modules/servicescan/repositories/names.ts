/**
 * Table and column names for the module's raw SQL, taken from the models
 * themselves: a renamed model or column fails when the module loads (and in
 * its unit spec), not silently in a statement at run time.
 */

type ParsableEntity = { parse(): { tableName: string; schema: Record<string, unknown> } }

/** Quoted names of one model's table and of the columns a statement uses. */
export type SqlNames<C extends string> = { table: string; col: Record<C, string> }

export function sqlNames<C extends string>(entity: ParsableEntity, columns: readonly C[]): SqlNames<C> {
  const { tableName, schema } = entity.parse()
  const col = {} as Record<C, string>
  for (const name of columns) {
    // A belongsTo relation `x` is stored in the column `x_id`.
    const property = name in schema ? name : name.endsWith("_id") ? name.slice(0, -3) : undefined
    if (!property || !(property in schema)) {
      throw new Error(`${tableName} has no column "${name}": the module's SQL and its model disagree`)
    }
    col[name] = `"${name}"`
  }
  return { table: `"${tableName}"`, col }
}
