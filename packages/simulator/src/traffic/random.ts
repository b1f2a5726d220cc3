/**
 * A pseudo-random generator (sfc32, its four words filled by splitmix32 from `seed`): the same number
 * gives the same traffic on every machine and every run. Returns numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let s = seed | 0
  const split = () => {
    s = (s + 0x9e3779b9) | 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = split()
  let b = split()
  let c = split()
  let d = split()
  return () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
}

/** The gap to the next arrival of a Poisson process with `meanGap` ms between arrivals. */
export const exponentialGap = (random: () => number, meanGap: number): number =>
  -Math.log(1 - random()) * meanGap
