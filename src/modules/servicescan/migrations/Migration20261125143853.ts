import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125143853 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_service_state" add column if not exists "configuration_error_key" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_service_state" drop column if exists "configuration_error_key";`);
  }

}
