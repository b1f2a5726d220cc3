/** The http suite's progress lines, on stderr. */
export const log = (message) => console.error(`[http] ${message}`)
