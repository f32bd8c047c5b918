import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261125105839 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "servicescan_proof_request" add column if not exists "other_remote_ids" text[] not null default '{}', add column if not exists "submissions" integer not null default 0, add column if not exists "in_flight_until" timestamptz null;`);
    // The due index now covers submitting rows too (a lost answer is re-sent after a wait); the
    // schema diff does not see a changed WHERE, so it is rebuilt by hand.
    this.addSql(`DROP INDEX IF EXISTS "IDX_servicescan_proof_request_due";`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_due" ON "servicescan_proof_request" ("next_poll_at") WHERE status IN ('to_submit', 'submitting', 'pending') AND deleted_at IS NULL;`);
    // Lost answers recorded before this version waited for an admin, with nothing scheduled: they are due now.
    this.addSql(`UPDATE "servicescan_proof_request" SET "next_poll_at" = now() WHERE "status" = 'submitting' AND "next_poll_at" IS NULL AND "deleted_at" IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`DROP INDEX IF EXISTS "IDX_servicescan_proof_request_due";`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_due" ON "servicescan_proof_request" ("next_poll_at") WHERE status IN ('to_submit', 'pending') AND deleted_at IS NULL;`);
    this.addSql(`alter table if exists "servicescan_proof_request" drop column if exists "other_remote_ids", drop column if exists "submissions", drop column if exists "in_flight_until";`);
  }

}
