import { model } from "@medusajs/framework/utils"

/**
 * Facts about the remote service that every Medusa process must agree on
 * (a server and its workers): one row per service, keyed by name. Kept in the
 * database because process memory differs between processes: a worker that
 * stopped polling on a refused key must be seen doing so by the server's
 * health page, and a key fixed through the server's probe must resume the
 * worker's job.
 */
export const ServiceState = model.define(
  { name: "service_state", tableName: "servicescan_service_state" },
  {
    /** The service's name, e.g. `disputes_api`. */
    id: model.text().primaryKey(),
    /** Why calls are stopped (a refused key, or none configured); null while they run. */
    configuration_error_message: model.text().nullable(),
    /** The HTTP status the service answered (401/403), or null when the key is simply missing. */
    configuration_error_status: model.number().nullable(),
    configuration_error_at: model.dateTime().nullable(),
    /**
     * A digest of the key that was refused (never the key): a process whose key
     * differs keeps calling, and only a probe with the same key lifts it.
     */
    configuration_error_key: model.text().nullable(),
    /** A job's position, e.g. the case import's last fully imported activity day (`YYYY-MM-DD`). */
    cursor: model.text().nullable(),
  }
)
