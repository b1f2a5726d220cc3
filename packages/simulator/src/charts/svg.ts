/** Escape text for SVG content and attribute values. */
export const escapeXml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

/** A coordinate with one decimal, so output is stable and small. */
export const px = (value: number): string => {
  const rounded = Math.round(value * 10) / 10
  return Object.is(rounded, -0) ? '0' : String(rounded)
}

/** An SVG element with attributes (undefined ones left out) and optional content. */
export function el(
  name: string,
  attrs: Record<string, string | number | undefined>,
  content?: string,
): string {
  let out = `<${name}`
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue
    out += ` ${key}="${typeof value === 'number' ? px(value) : escapeXml(value)}"`
  }
  return content === undefined ? `${out}/>` : `${out}>${content}</${name}>`
}
