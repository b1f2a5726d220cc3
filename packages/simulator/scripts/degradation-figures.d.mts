/** The picture of docs/degradation.md: its file name in docs/images/ and its SVG. */
export function degradationFigures(): Promise<{ file: string; svg: string }[]>
