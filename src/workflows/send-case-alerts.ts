import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { sendNotificationsStep } from "@medusajs/medusa/core-flows"
import { buildCaseAlertsStep } from "./steps/build-case-alerts"
import type { CaseAlertEvent } from "./utils/case-alerts"

export type SendCaseAlertsWorkflowInput = CaseAlertEvent

/**
 * Sends one case alert (`servicescan.case.needs_attention`, `.due_soon` or
 * `.decided`) through Medusa's Notification Module: to the `feed` channel
 * (the admin's bell) and, when the `alerts` option names an email template,
 * to `email`. Each notification carries an idempotency key of the alert, so
 * an event delivered twice, or a run repeated after a failure, sends nothing
 * twice (a notification that failed is sent again).
 */
export const sendCaseAlertsWorkflow = createWorkflow(
  "servicescan-send-case-alerts",
  (input: WorkflowData<SendCaseAlertsWorkflowInput>) => {
    const notifications = buildCaseAlertsStep(input)
    // No compensation in Medusa's step: a notification sent cannot be taken back.
    const sent = sendNotificationsStep(notifications)
    return new WorkflowResponse(sent)
  }
)
