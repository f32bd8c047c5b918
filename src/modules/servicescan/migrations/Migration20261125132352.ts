import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125132352 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_checkout_attempt" add column if not exists "payment_method_id" text null;`);
    this.addSql(`alter table if exists "servicescan_checkout_attempt" alter column "form_id" type text using ("form_id"::text);`);
    this.addSql(`alter table if exists "servicescan_checkout_attempt" alter column "form_id" drop not null;`);

    this.addSql(`alter table if exists "servicescan_payment_ref" add column if not exists "token_fingerprint" text null;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_payment_ref_token_fingerprint" ON "servicescan_payment_ref" ("token_fingerprint") WHERE token_fingerprint IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_payment_ref_scan_id" ON "servicescan_payment_ref" ("scan_id") WHERE scan_id IS NOT NULL AND deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_checkout_attempt" drop column if exists "payment_method_id";`);

    this.addSql(`alter table if exists "servicescan_checkout_attempt" alter column "form_id" type text using ("form_id"::text);`);
    this.addSql(`alter table if exists "servicescan_checkout_attempt" alter column "form_id" set not null;`);

    this.addSql(`drop index if exists "IDX_servicescan_payment_ref_token_fingerprint";`);
    this.addSql(`drop index if exists "IDX_servicescan_payment_ref_scan_id";`);
    this.addSql(`alter table if exists "servicescan_payment_ref" drop column if exists "token_fingerprint";`);
  }

}
