/** Every picture of docs/algorithms.md: its file name in docs/images/ and its SVG. */
export function figures(): { file: string; svg: string }[]
