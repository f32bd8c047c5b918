import { Migration } from "@medusajs/framework/mikro-orm/migrations";

/**
 * The evidence pack's own key, wrapped under the module's `evidenceKey`
 * (src/lib/sealed-evidence.ts). Packs stored in clear before this change keep
 * a null key: a MikroORM migration has no access to the configured key, so the
 * plugin's migration script (src/migration-scripts/servicescan-seal-evidence-at-rest.ts,
 * run by `medusa db:migrate` after this) seals them.
 */

export class Migration20261127220751 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_dispute_case" add column if not exists "pack_key" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_dispute_case" drop column if exists "pack_key";`);
  }

}
