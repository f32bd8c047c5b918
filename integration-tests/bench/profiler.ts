import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"

/**
 * BENCH_PROFILE=<file.cpuprofile>: a CPU profile of this process (the app)
 * over the measured part of a bench, for Chrome DevTools. Answers a no-op when
 * the variable is unset, so the bench pays nothing for it.
 */
export async function startProfilerFromEnv(): Promise<{ stop: () => Promise<void> }> {
  const file = process.env.BENCH_PROFILE
  if (!file) {
    return { stop: async () => undefined }
  }
  const session = new Session()
  session.connect()
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))))
  await post("Profiler.enable")
  await post("Profiler.setSamplingInterval", { interval: 500 })
  await post("Profiler.start")
  return {
    stop: async () => {
      const { profile } = await post<{ profile: object }>("Profiler.stop")
      session.disconnect()
      writeFileSync(file, JSON.stringify(profile))
    },
  }
}
