/**
 * The views of every key of one algorithm in one flat buffer, `width` numbers each (as the MemoryStore keeps its
 * states; a key's budget follows its view there): a decision reads and writes one place, and keys used together
 * sit together. Slots of forgotten keys are reused.
 */
export class ViewSlab {
  data: Float64Array
  private readonly free: number[] = []
  private used = 0

  constructor(readonly width: number) {
    this.data = new Float64Array(width * 64)
  }

  /** A slot, zeroed; returns its offset in `data`. */
  allocate(): number {
    const at = this.free.pop() ?? this.width * this.used++
    if (at + this.width > this.data.length) {
      const grown = new Float64Array(this.data.length * 2)
      grown.set(this.data)
      this.data = grown
    }
    this.data.fill(0, at, at + this.width)
    return at
  }

  release(at: number): void {
    this.free.push(at)
  }
}
