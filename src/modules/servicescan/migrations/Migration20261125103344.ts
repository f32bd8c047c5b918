import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125103344 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_checkout_attempt" drop constraint if exists "servicescan_checkout_attempt_session_unique";`);
    this.addSql(`create table if not exists "servicescan_checkout_attempt" ("id" text not null, "payment_session_id" text not null, "cart_id" text not null, "form_id" text not null, "request_id" text not null, "attempted_at" timestamptz not null, "reconciled_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_checkout_attempt_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_checkout_attempt_deleted_at" ON "servicescan_checkout_attempt" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_checkout_attempt_session_unique" ON "servicescan_checkout_attempt" ("payment_session_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_checkout_attempt_form_id" ON "servicescan_checkout_attempt" ("form_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_checkout_attempt_unreconciled" ON "servicescan_checkout_attempt" ("attempted_at") WHERE reconciled_at IS NULL AND deleted_at IS NULL;`);

    this.addSql(`create table if not exists "servicescan_service_state" ("id" text not null, "configuration_error_message" text null, "configuration_error_status" integer null, "configuration_error_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_service_state_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_service_state_deleted_at" ON "servicescan_service_state" ("deleted_at") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "servicescan_checkout_attempt" cascade;`);

    this.addSql(`drop table if exists "servicescan_service_state" cascade;`);
  }

}
