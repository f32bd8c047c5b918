import type { IFileModuleService, Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"

/**
 * Deletes copies archived in the clear by an earlier version, once their
 * sealed replacements are recorded. The last step, and best effort: a
 * deletion cannot be undone, so nothing after it may fail, and a file left
 * behind is logged rather than failing the archive run that replaced it.
 */
export const deleteSupersededArchivesStep = createStep(
  "servicescan-delete-superseded-archives",
  async (input: { file_ids: string[] }, { container }) => {
    if (!input.file_ids.length) {
      return new StepResponse(undefined)
    }
    try {
      await container.resolve<IFileModuleService>(Modules.FILE).deleteFiles(input.file_ids)
    } catch (error) {
      container
        .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
        .warn(`servicescan: could not delete ${input.file_ids.length} superseded archive file(s): ${(error as Error).message}`)
    }
    return new StepResponse(undefined)
  }
)
