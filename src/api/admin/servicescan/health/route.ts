import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { SERVICESCAN_MODULE } from "../../../../modules/servicescan"
import type ServiceScanModuleService from "../../../../modules/servicescan/service"

/**
 * `GET /admin/servicescan/health`: which keys are configured (booleans, never
 * the keys), whether ServiceScan answers with them, the last poll and the
 * queue. The probe is one side-effect-free call; when it succeeds it also
 * lifts a configuration error, so fixing a key resumes polling.
 */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const service = req.scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const [probe, queue] = await Promise.all([service.probe(), service.getQueueStats()])
  const settings = service.getSettings()
  // After the probe, which may have lifted it: what every process (the worker's job included) now sees.
  const configurationError = await service.getConfigurationError()
  res.json({
    health: {
      ok: probe.reachable && !configurationError,
      keys: settings.keys,
      service: { base_url: settings.base_url, ...probe },
      configuration_error: configurationError,
      polling: {
        stopped: Boolean(configurationError),
        interval_ms: settings.poll_interval_ms,
        last_poll_at: queue.last_polled_at,
        pending_count: queue.counts.pending + queue.counts.to_submit,
        counts: queue.counts,
        // Submissions whose answer was lost: an admin decides whether to resubmit.
        needs_attention_count: queue.counts.submitting,
      },
      archive_images: settings.archive_images,
      dispute_gateway: settings.dispute_gateway,
      auto_respond: settings.auto_respond,
    },
  })
}
