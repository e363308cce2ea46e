/**
 * How many random cases the fuzz and property tests try. CI (`CI=true`, which .ci/run sets)
 * runs the full counts; elsewhere a quarter of them, so that the local test loop stays quick.
 * FUZZ_SCALE sets the share either way (`FUZZ_SCALE=1 npm test` runs what CI runs; 4 runs four
 * times as many). docs/development.md ("Tests") and docs/decisions/0145-fewer-random-cases-locally.md.
 */
const inCi = (process.env.CI ?? '') !== '' && !/^(0|false)$/i.test(process.env.CI ?? '');

export const RANDOM_SCALE = Number(process.env.FUZZ_SCALE ?? (inCi ? 1 : 0.25));

/** `full` (the CI count) times RANDOM_SCALE, at least 1. */
export const scaled = (full: number): number => Math.max(1, Math.round(full * RANDOM_SCALE));
