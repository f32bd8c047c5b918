import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125122524 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_payment_ref" drop constraint if exists "servicescan_payment_ref_payment_unique";`);
    this.addSql(`alter table if exists "servicescan_dispute_case" drop constraint if exists "servicescan_dispute_case_gateway_case_unique";`);
    this.addSql(`alter table if exists "servicescan_dispute_case" drop constraint if exists "servicescan_dispute_case_chargeback_id_unique";`);
    this.addSql(`create table if not exists "servicescan_dispute_case" ("id" text not null, "gateway" text not null, "case_id" text not null, "status" text check ("status" in ('unmatched', 'matched')) not null default 'unmatched', "match_note" text null, "chargeback_id" text null, "order_id" text null, "amount" numeric not null, "currency_code" text not null, "cycle" text null, "reason_code" text null, "reason_description" text null, "queue" text null, "awaiting_merchant" boolean not null default false, "reply_by" text null, "issued_on" text null, "processor_transaction_id" text null, "processor_order_id" text null, "card_last4" text null, "card_type" text null, "acquirer_reference_number" text null, "activities" jsonb not null default '{"items":[]}', "last_activity_on" text null, "response_status" text check ("response_status" in ('none', 'representing', 'represented', 'accepting', 'liability_accepted', 'expired')) not null default 'none', "pack_file_id" text null, "pack_bytes" integer null, "pack_generated_at" timestamptz null, "pack_downscaled" boolean not null default false, "document_id" text null, "document_uploaded_at" timestamptz null, "represented_at" timestamptz null, "liability_accepted_at" timestamptz null, "response_error" text null, "outcome" text check ("outcome" in ('won', 'lost')) null, "raw_amount" jsonb not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_dispute_case_pkey" primary key ("id"));`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_dispute_case_chargeback_id_unique" ON "servicescan_dispute_case" ("chargeback_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_dispute_case_deleted_at" ON "servicescan_dispute_case" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_dispute_case_gateway_case_unique" ON "servicescan_dispute_case" ("gateway", "case_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_dispute_case_status" ON "servicescan_dispute_case" ("status") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "servicescan_payment_ref" ("id" text not null, "payment_id" text not null, "order_id" text not null, "processor_transaction_id" text not null, "processor_order_id" text null, "scan_id" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_payment_ref_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_payment_ref_deleted_at" ON "servicescan_payment_ref" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_payment_ref_payment_unique" ON "servicescan_payment_ref" ("payment_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_payment_ref_processor_txn" ON "servicescan_payment_ref" ("processor_transaction_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_payment_ref_processor_order" ON "servicescan_payment_ref" ("processor_order_id") WHERE deleted_at IS NULL;`);

    this.addSql(`alter table if exists "servicescan_dispute_case" add constraint "servicescan_dispute_case_chargeback_id_foreign" foreign key ("chargeback_id") references "servicescan_chargeback" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table if exists "servicescan_chargeback" drop constraint if exists "servicescan_chargeback_source_check";`);

    this.addSql(`alter table if exists "servicescan_chargeback" add constraint "servicescan_chargeback_source_check" check("source" in ('admin', 'webhook', 'api', 'processor'));`);

    this.addSql(`alter table if exists "servicescan_service_state" add column if not exists "cursor" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "servicescan_dispute_case" cascade;`);

    this.addSql(`drop table if exists "servicescan_payment_ref" cascade;`);

    this.addSql(`alter table if exists "servicescan_chargeback" drop constraint if exists "servicescan_chargeback_source_check";`);

    this.addSql(`alter table if exists "servicescan_chargeback" add constraint "servicescan_chargeback_source_check" check("source" in ('admin', 'webhook', 'api'));`);

    this.addSql(`alter table if exists "servicescan_service_state" drop column if exists "cursor";`);
  }

}
