import { QueryClient, QueryClientProvider } from "@tanstack/react-query"
import { Toaster, TooltipProvider } from "@medusajs/ui"
import { configure, render, type RenderResult } from "@testing-library/react"
import { createInstance } from "i18next"
import type { ReactElement } from "react"
import { initReactI18next } from "react-i18next"
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom"
import resources from "../../i18n"

// The default 1 s for `findBy…`/`waitFor` is short on a shared 2-core machine
// under load (the first render of a file also compiles Radix and the SDK);
// a wait that ends early still fails the spec, it just takes longer.
configure({ asyncUtilTimeout: 5_000 })

/**
 * What jsdom lacks and Radix (under @medusajs/ui) touches: layout observers,
 * media queries, pointer capture and scrolling. Inert stand-ins: the specs
 * assert behaviour, not layout.
 */
export function installDomShims(): void {
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  Object.assign(globalThis, { ResizeObserver: ResizeObserverStub })
  if (!window.matchMedia) {
    window.matchMedia = (query: string) =>
      ({
        matches: false,
        media: query,
        onchange: null,
        addListener: () => {},
        removeListener: () => {},
        addEventListener: () => {},
        removeEventListener: () => {},
        dispatchEvent: () => false,
      }) as MediaQueryList
  }
  const proto = Element.prototype as unknown as Record<string, unknown>
  proto.hasPointerCapture ??= () => false
  proto.setPointerCapture ??= () => {}
  proto.releasePointerCapture ??= () => {}
  proto.scrollIntoView ??= () => {}
  // The DataTable scrolls its table back to the top on a page change.
  proto.scroll ??= () => {}
}

/** Where the router is, for specs that assert navigation and URL state. */
export const LocationProbe = () => {
  const location = useLocation()
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>
}

/**
 * An i18next instance set up as the dashboard sets up its own
 * (`fallbackLng: "en"`, the plugin's resources merged in), synchronously so
 * the first render already has the words. `initReactI18next` makes it the
 * one `useTranslation` reads, as the dashboard's instance is in the admin.
 */
export function createTestI18n(language = "en"): void {
  const instance = createInstance()
  void instance.use(initReactI18next).init({
    lng: language,
    fallbackLng: "en",
    fallbackNS: "translation",
    resources,
    interpolation: { escapeValue: false },
    initImmediate: false,
  })
}

export type AdminRenderOptions = {
  /** Initial URL of the in-memory router. */
  url?: string
  /** A route pattern for the element (so `useParams` works), e.g. `/disputes/:id`. */
  path?: string
  /** The admin's language (default English). */
  language?: string
}

/**
 * Renders like the dashboard does around an extension: a React Query client
 * (no retries, so an error shows at once), a router, the tooltip provider and
 * the toaster.
 */
export function renderAdmin(ui: ReactElement, options: AdminRenderOptions = {}): RenderResult & { client: QueryClient } {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  })
  const url = options.url ?? "/"
  const element = options.path ? (
    <Routes>
      <Route path={options.path} element={ui} />
      <Route path="*" element={null} />
    </Routes>
  ) : (
    ui
  )
  createTestI18n(options.language)
  const result = render(
    <QueryClientProvider client={client}>
      <TooltipProvider>
        <MemoryRouter initialEntries={[url]}>
          {element}
          <LocationProbe />
        </MemoryRouter>
        <Toaster />
      </TooltipProvider>
    </QueryClientProvider>
  )
  return Object.assign(result, { client })
}
