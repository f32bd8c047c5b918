const { MetadataStorage } = require("@medusajs/framework/mikro-orm/core")

// Each spec file boots its own container; entity metadata cached by an earlier
// file would otherwise leak into the next one (as in Medusa's plugin starter).
MetadataStorage.clear()

// The test apps load the plugin's scheduled jobs, which would fire on the wall clock (every 10, 15
// and 30 minutes) in the middle of a spec that runs the same job itself and counts its calls, or
// expects to take its run lock. Specs run the jobs when they mean to; the system suites, which
// test the schedules, set their own in the processes they start. Weekly (Sunday 00:00), not
// yearly: Medusa's in-memory workflow engine waits for a job with one setTimeout, and a delay past
// 2^31 ms (24.8 days) makes Node fire it at once, and again after each run (seen: a yearly
// schedule kept the case import running, and an admin's "Import now" got 409 for its lock).
for (const name of ["SERVICESCAN_SYNC_SCHEDULE", "SERVICESCAN_RECONCILE_SCHEDULE", "SERVICESCAN_CASE_IMPORT_SCHEDULE", "SERVICESCAN_SIGNAL_PURGE_SCHEDULE"]) {
  process.env[name] ??= "0 0 * * 0"
}
