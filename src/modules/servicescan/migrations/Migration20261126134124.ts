import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261126134124 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index if exists "IDX_servicescan_proof_request_due";`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_due_order" ON "servicescan_proof_request" ("next_poll_at", "id") WHERE status IN ('to_submit', 'submitting', 'pending') AND deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "IDX_servicescan_proof_request_due_order";`);

    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_servicescan_proof_request_due" ON "servicescan_proof_request" ("next_poll_at") WHERE status IN ('to_submit', 'submitting', 'pending') AND deleted_at IS NULL;`);
  }

}
