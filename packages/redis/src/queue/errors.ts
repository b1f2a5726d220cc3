/** Stable codes of what a queue worker reports to `onError`. */
export type QueueErrorCode =
  /** The handler threw or rejected: the job goes back to its lane, or fails for good after `maxAttempts`. */
  | 'ERR_FLOODGATE_JOB_FAILED'
  /** Redis did not answer, or failed: the worker waits a moment and tries again. */
  | 'ERR_FLOODGATE_QUEUE_UNAVAILABLE'

/** What went wrong in a queue worker; handed to `onError`, never thrown. */
export class QueueError extends Error {
  override readonly name = 'QueueError'
  readonly code: QueueErrorCode
  /** The job's id, when a job was at hand. */
  readonly jobId: string | undefined
  constructor(code: QueueErrorCode, message: string, options: { cause?: unknown; jobId?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.jobId = options.jobId
  }
}
