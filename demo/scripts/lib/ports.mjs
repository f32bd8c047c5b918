// The demo's ports: the defaults (or DEMO_*_PORT), refused with advice when busy; free ones for --smoke.
import { problem } from "./lifecycle.mjs"
import { SMOKE } from "./settings.mjs"
import { freePort, portIsFree } from "./util.mjs"

export async function choosePort(envName, fallback, what) {
  const fromEnv = process.env[envName]
  if (fromEnv) {
    if (!/^\d+$/.test(fromEnv) || Number(fromEnv) > 65535) throw problem(`${envName} must be a port number, got "${fromEnv}"`)
  }
  if (SMOKE && !fromEnv) return freePort()
  const port = Number(fromEnv || fallback)
  if (!(await portIsFree(port))) {
    throw problem(
      `port ${port} (${what}) is already in use. Is a demo already running? Stop it, or pick another port: ${envName}=<port> npm run demo`
    )
  }
  return port
}
