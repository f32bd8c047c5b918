const { MetadataStorage } = require("@medusajs/framework/mikro-orm/core")

// Each spec file boots its own container; entity metadata cached by an earlier
// file would otherwise leak into the next one (as in Medusa's plugin starter).
MetadataStorage.clear()
