import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261127215652 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_form_binding" drop constraint if exists "servicescan_form_binding_form_hash_unique";`);
    this.addSql(`create table if not exists "servicescan_form_binding" ("id" text not null, "form_hash" text not null, "payment_collection_id" text not null, "customer_id" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_form_binding_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_form_binding_deleted_at" ON "servicescan_form_binding" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_form_binding_form_hash_unique" ON "servicescan_form_binding" ("form_hash") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "servicescan_form_binding" cascade;`);
  }

}
