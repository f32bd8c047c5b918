import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261128012914 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_dispute_case" add column if not exists "due_soon_alerted_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_dispute_case" drop column if exists "due_soon_alerted_at";`);
  }

}
