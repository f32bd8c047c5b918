import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261122031039 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_scan_evidence" drop constraint if exists "servicescan_scan_evidence_proof_request_scan_unique";`);
    this.addSql(`alter table if exists "servicescan_proof_request" drop constraint if exists "servicescan_proof_request_remote_id_unique";`);
    this.addSql(`alter table if exists "servicescan_chargeback" drop constraint if exists "servicescan_chargeback_external_id_unique";`);
    this.addSql(`create table if not exists "servicescan_chargeback" ("id" text not null, "external_id" text not null, "order_id" text not null, "amount" numeric not null, "currency_code" text not null, "reason" text null, "reason_code" text null, "due_by" timestamptz null, "status" text check ("status" in ('open', 'evidence_pending', 'evidence_ready', 'no_evidence', 'won', 'lost', 'closed')) not null default 'open', "source" text check ("source" in ('admin', 'webhook', 'api')) not null default 'api', "extra_scan_ids" text[] not null default '{}', "metadata" jsonb null, "raw_amount" jsonb not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_chargeback_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_chargeback_deleted_at" ON "servicescan_chargeback" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_chargeback_external_id_unique" ON "servicescan_chargeback" ("external_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_chargeback_order_id" ON "servicescan_chargeback" ("order_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_chargeback_status_due_by" ON "servicescan_chargeback" ("status", "due_by") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "servicescan_proof_request" ("id" text not null, "remote_id" text null, "status" text check ("status" in ('to_submit', 'submitting', 'pending', 'complete', 'failed')) not null default 'to_submit', "scan_ids" text[] not null, "attempts" integer not null default 0, "next_poll_at" timestamptz null, "last_polled_at" timestamptz null, "submitted_at" timestamptz null, "last_error" text null, "completed_at" timestamptz null, "chargeback_id" text not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_proof_request_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_chargeback_id" ON "servicescan_proof_request" ("chargeback_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_deleted_at" ON "servicescan_proof_request" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_due" ON "servicescan_proof_request" ("next_poll_at") WHERE status IN ('to_submit', 'pending') AND deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_remote_id_unique" ON "servicescan_proof_request" ("remote_id") WHERE remote_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_status" ON "servicescan_proof_request" ("status") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "servicescan_scan_evidence" ("id" text not null, "scan_id" text not null, "ground_truth" text check ("ground_truth" in ('valid', 'invalid')) null, "reported_ground_truth" text null, "image_url" text null, "archived_file_id" text null, "archived_file_url" text null, "archived_at" timestamptz null, "archive_error" text null, "proof_request_id" text not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "servicescan_scan_evidence_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_scan_evidence_proof_request_id" ON "servicescan_scan_evidence" ("proof_request_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_scan_evidence_deleted_at" ON "servicescan_scan_evidence" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_scan_evidence_scan_id" ON "servicescan_scan_evidence" ("scan_id") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_servicescan_scan_evidence_proof_request_scan_unique" ON "servicescan_scan_evidence" ("proof_request_id", "scan_id") WHERE deleted_at IS NULL;`);

    this.addSql(`alter table if exists "servicescan_proof_request" add constraint "servicescan_proof_request_chargeback_id_foreign" foreign key ("chargeback_id") references "servicescan_chargeback" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table if exists "servicescan_scan_evidence" add constraint "servicescan_scan_evidence_proof_request_id_foreign" foreign key ("proof_request_id") references "servicescan_proof_request" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_proof_request" drop constraint if exists "servicescan_proof_request_chargeback_id_foreign";`);

    this.addSql(`alter table if exists "servicescan_scan_evidence" drop constraint if exists "servicescan_scan_evidence_proof_request_id_foreign";`);

    this.addSql(`drop table if exists "servicescan_chargeback" cascade;`);

    this.addSql(`drop table if exists "servicescan_proof_request" cascade;`);

    this.addSql(`drop table if exists "servicescan_scan_evidence" cascade;`);
  }

}
