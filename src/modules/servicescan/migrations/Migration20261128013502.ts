import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261128013502 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_processor_event" drop constraint if exists "servicescan_processor_event_key_unique";`);
    this.addSql(`create table if not exists "servicescan_processor_event" ("id" text not null, "gateway" text not null, "event_key" text not null, "kind" text check ("kind" in ('case', 'operation', 'ignored')) not null, "case_id" text null, "occurred_at" timestamptz not null, "data" jsonb not null, "processed_at" timestamptz null, "error" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_processor_event_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_processor_event_deleted_at" ON "servicescan_processor_event" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_processor_event_key_unique" ON "servicescan_processor_event" ("gateway", "event_key") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_processor_event_case" ON "servicescan_processor_event" ("gateway", "case_id") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "servicescan_processor_event" cascade;`);
  }

}
