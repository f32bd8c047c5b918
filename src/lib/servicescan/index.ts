export * from "./checkout-client"
