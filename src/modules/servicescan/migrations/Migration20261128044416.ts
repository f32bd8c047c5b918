import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261128044416 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_checkout_signal" drop constraint if exists "servicescan_checkout_signal_session_unique";`);
    this.addSql(`create table if not exists "servicescan_checkout_signal" ("id" text not null, "payment_session_id" text not null, "cart_id" text not null, "payment_id" text null, "customer_id" text null, "ip_address" text null, "user_agent" text null, "device_id" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_checkout_signal_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_checkout_signal_deleted_at" ON "servicescan_checkout_signal" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_checkout_signal_session_unique" ON "servicescan_checkout_signal" ("payment_session_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_checkout_signal_payment" ON "servicescan_checkout_signal" ("payment_id") WHERE payment_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_checkout_signal_created_at" ON "servicescan_checkout_signal" ("created_at") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "servicescan_checkout_signal" cascade;`);
  }

}
