// The memory of the worker the job benches model (bench:disputes, bench:chargebacks).
//
// Node sizes its heap from the memory it sees: on this build (64-bit, no pointer compression)
// the old generation gets half of it (at most 4 GB) and each young semi-space 1/128 of that (at
// most 16 MB); in a container, "the memory it sees" is the container's limit. V8 then lets a busy
// process's heap grow up to 4 times what is live before collecting when the heap limit is 2 GB or
// more, and less below that (bench/README.md, "The heap controller"). A job's peak RSS is
// therefore a property of the machine as much as of the job: on a 24 GB workstation the same run
// peaks far higher than in the worker container a store runs it in.
//
// So the measured process of a job bench gets the heap Node would give it in a worker with
// BENCH_WORKER_MEMORY_MB of memory (default 2048: the least Medusa's deployment guide asks a
// host plan for), through the two flags that set those sizes. A run of the whole bench inside a
// 2 GB memory cgroup, with no flags, measured the same figures (bench/README.md). 0 measures with
// this machine's own sizing instead; heap flags already given (NODE_OPTIONS) are left alone.

import v8 from "node:v8"

const HEAP_FLAG = /--max-(old|semi)-space-size/

/** The heap limit of this process, as the bench prints it ("4,144 MB"). */
export function heapLimit() {
  return `${Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20).toLocaleString("en-US")} MB`
}

/** `workerHeap()` for a bench's command line: a bad BENCH_WORKER_MEMORY_MB ends it with a usage error. */
export function workerHeapOrExit(bench) {
  try {
    return workerHeap()
  } catch (error) {
    console.error(`${bench}: ${error.message}`)
    process.exit(2)
  }
}

/** The flags and a sentence saying what they model, or why there are none. */
export function workerHeap() {
  const raw = process.env.BENCH_WORKER_MEMORY_MB ?? "2048"
  const memoryMb = Number(raw)
  if (!Number.isSafeInteger(memoryMb) || memoryMb < 0 || (memoryMb > 0 && memoryMb < 512)) {
    throw new Error(`BENCH_WORKER_MEMORY_MB must be 0 (this machine's sizing) or a whole number of MB from 512, got "${raw}"`)
  }
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].filter((flag) => HEAP_FLAG.test(flag))
  const machineLimit = heapLimit()
  if (given.length) {
    return { flags: [], description: `heap flags given (${given.join(" ")}): left as they are` }
  }
  if (memoryMb === 0) {
    return { flags: [], description: `this machine's own heap sizing (BENCH_WORKER_MEMORY_MB=0): heap limit ${machineLimit}` }
  }
  const oldMb = Math.min(4096, Math.floor(memoryMb / 2))
  const semiMb = Math.max(1, Math.min(16, Math.floor(oldMb / 128)))
  const flags = [`--max-old-space-size=${oldMb}`, `--max-semi-space-size=${semiMb}`]
  return {
    flags,
    description:
      `heap sized as Node sizes it in a worker with ${memoryMb.toLocaleString("en-US")} MB of memory (${flags.join(" ")}); ` +
      `BENCH_WORKER_MEMORY_MB=0 for this machine's own (heap limit ${machineLimit})`,
  }
}
